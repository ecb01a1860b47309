import { useCallback, useEffect, useState } from "react";
import { BackendError, CLIENT_ERROR_CODES, type Backend } from "./backend";
import type { AppInfo } from "./bindings/AppInfo";

export type AppInfoState =
  | { readonly status: "loading" }
  | { readonly status: "ready"; readonly info: AppInfo }
  | { readonly status: "error"; readonly error: BackendError };

export function useAppInfo(backend: Backend): { state: AppInfoState; retry: () => void } {
  const [state, setState] = useState<AppInfoState>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    setState({ status: "loading" });
    backend.appInfo().then(
      (info) => {
        if (current) setState({ status: "ready", info });
      },
      (error: unknown) => {
        if (current) setState({ status: "error", error: asBackendError(error) });
      },
    );
    return () => {
      current = false;
    };
  }, [backend, attempt]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, retry };
}

function asBackendError(error: unknown): BackendError {
  if (error instanceof BackendError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new BackendError(CLIENT_ERROR_CODES.badResponse, message, { cause: error });
}
