import { useEffect, useState } from "react";
import { useAccess } from "../access/context";
import type { Backend } from "../backend";

/** The setting the office's country is kept in. */
const COUNTRY_SETTING = "intake.default_region";

/**
 * The office's country (`intake.default_region`, such as "FR") for a field's example number;
 * null while unknown, when none is set, or for someone who may not read the settings (then the
 * hints give an international example).
 */
export function useOfficeCountry(backend: Backend | null): string | null {
  const { may } = useAccess();
  const [country, setCountry] = useState<string | null>(null);
  useEffect(() => {
    if (!may.admin || backend === null) return undefined;
    let current = true;
    backend.settings().then(
      (view) => {
        const value = view.fields.find((f) => f.key === COUNTRY_SETTING)?.value.trim() ?? "";
        if (current) setCountry(value === "" ? null : value.toUpperCase());
      },
      () => {
        // Only an example depends on it: without it the hints stay international.
      },
    );
    return () => {
      current = false;
    };
  }, [backend, may.admin]);
  return country;
}
