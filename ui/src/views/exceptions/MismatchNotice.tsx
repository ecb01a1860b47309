import { useId } from "react";
import type { BackendError } from "../../backend";
import type { FactCheck } from "../../bindings/FactCheck";
import { useI18n } from "../../i18n/context";
import { FieldProblem } from "../../components/FieldProblem";
import { factValues } from "./facts";
import { ScrollArea } from "../../components/ScrollArea";

/** The engine's refusal to attach a receipt to a message it does not fit, and its comparison of the two once read. */
export interface Mismatch {
  readonly messageId: number;
  readonly error: BackendError;
  /** The engine's comparison, fact by fact; null while it is asked (empty when it could not be read). */
  readonly facts: readonly FactCheck[] | null;
}

export function MismatchNotice({
  mismatch,
  reviewed,
  onReviewed,
}: {
  mismatch: Mismatch;
  reviewed: boolean;
  onReviewed: (value: boolean) => void;
}) {
  const { t, formatDateTime } = useI18n();
  const checkId = useId();
  const named = new Set(mismatch.error.errors.map((x) => x.field));
  return (
    <div className="notice notice-warning field-wide" role="alert" data-testid="attach-mismatches">
      <h3>{t("mismatch.title", { id: String(mismatch.messageId) })}</h3>
      <p>{t("mismatch.intro")}</p>
      <p>
        <span className="muted">{t("mismatch.engineSays")}</span>{" "}
        <span lang="en" data-testid="mismatch-message">
          {mismatch.error.message}
        </span>
      </p>
      {mismatch.error.errors.length > 0 && (
        <ul className="field-errors" data-testid="mismatch-list">
          {mismatch.error.errors.map((x) => (
            <li key={`${x.field}:${x.code}`} data-field={x.field}>
              <FieldProblem error={x} withField />
            </li>
          ))}
        </ul>
      )}
      {mismatch.facts === null && (
        <p className="status" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("picker.comparing")}
        </p>
      )}
      {mismatch.facts !== null && mismatch.facts.length > 0 && (
        <ScrollArea>
          <table className="table table-compact" data-testid="mismatch-compare">
            <thead>
              <tr>
                <th scope="col">{t("mismatch.fact")}</th>
                <th scope="col">{t("mismatch.receiptSays")}</th>
                <th scope="col">{t("mismatch.messageSays", { id: String(mismatch.messageId) })}</th>
              </tr>
            </thead>
            <tbody>
              {mismatch.facts.map((f) => {
                const values = factValues(f, formatDateTime);
                return (
                  <tr
                    key={f.fact}
                    className={f.verdict === "differs" || named.has(f.fact) ? "mismatch-row" : undefined}
                    data-field={f.fact}
                    data-verdict={f.verdict}
                  >
                    <th scope="row">{t(`mismatch.${f.fact}`)}</th>
                    <td className="wrap">{values.receipt ?? "—"}</td>
                    <td className="wrap">{values.message}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollArea>
      )}
      <label className="choice" htmlFor={checkId}>
        <input
          id={checkId}
          type="checkbox"
          checked={reviewed}
          onChange={(x) => onReviewed(x.target.checked)}
          data-testid="attach-reviewed"
        />
        <span className="choice-label">{t("mismatch.reviewed")}</span>
      </label>
    </div>
  );
}
