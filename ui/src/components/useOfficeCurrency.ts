import { useEffect, useState } from "react";
import { useAccess } from "../access/context";
import type { Backend } from "../backend";

/**
 * The office's currency (`guardrails.currency`, such as "EUR"), for an amount a record gives
 * without it (a message's cost); null while unknown, when not `wanted`, or for someone who may not
 * read the guardrails (then the amount is shown as a plain number).
 */
export function useOfficeCurrency(backend: Backend | null, wanted: boolean): string | null {
  const { may } = useAccess();
  const [currency, setCurrency] = useState<string | null>(null);
  useEffect(() => {
    if (!wanted || !may.readAll || backend === null) return undefined;
    let current = true;
    backend.guardrails().then(
      (overview) => {
        if (current) setCurrency(overview.spend.currency);
      },
      () => {
        // Only how the amount is written depends on it.
      },
    );
    return () => {
      current = false;
    };
  }, [backend, may.readAll, wanted]);
  return currency;
}
