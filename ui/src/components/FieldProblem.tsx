import type { FieldError } from "../bindings/FieldError";
import { useI18n } from "../i18n/context";
import { fieldErrorLine, fieldProblem } from "../i18n/server/words";

/**
 * What is wrong with a field, in the reader's language. A setting's "invalid" carries its reason
 * only in the engine's words, so that reason follows, marked as English.
 */
export function FieldProblem({ error, withField = false }: { error: FieldError; withField?: boolean }) {
  const { t } = useI18n();
  return (
    <>
      {withField ? fieldErrorLine(error, t) : fieldProblem(error, t)}
      {error.code === "invalid" && (
        <>
          {" "}
          <span lang="en" className="muted">
            ({error.message})
          </span>
        </>
      )}
    </>
  );
}
