import { useId } from "react";
import type { BackendError } from "../../backend";
import type { MessageDetail } from "../../bindings/MessageDetail";
import type { ReceiptView } from "../../bindings/ReceiptView";
import { useI18n } from "../../i18n/context";
import { FieldProblem } from "../../components/FieldProblem";
import { receiptTextField } from "./picker";

/** The engine's refusal to attach a receipt to a message it does not fit, and that message once read. */
export interface Mismatch {
  readonly messageId: number;
  readonly error: BackendError;
  readonly target: MessageDetail | null;
}

/** As much of the body as the receipt quotes (receipts carry its first characters only). */
function bodyStart(body: string, quoted: string | null): string {
  const n = quoted === null ? 20 : [...quoted.trim()].length;
  const chars = [...body];
  return chars.length > n ? `${chars.slice(0, n).join("")}…` : body;
}

export function MismatchNotice({
  mismatch,
  receipt,
  reviewed,
  onReviewed,
}: {
  mismatch: Mismatch;
  receipt: ReceiptView | null;
  reviewed: boolean;
  onReviewed: (value: boolean) => void;
}) {
  const { t, formatDateTime } = useI18n();
  const checkId = useId();
  const m = mismatch.target?.message ?? null;
  const named = new Set(mismatch.error.errors.map((x) => x.field));
  const receiptText = receiptTextField(receipt?.raw_text ?? null);
  const rows: { field: string; label: string; receipt: string | null; message: string | null }[] = [
    {
      field: "connection",
      label: t("mismatch.connection"),
      receipt: receipt?.connection ?? null,
      message: m?.connection ?? null,
    },
    {
      field: "destination",
      label: t("mismatch.destination"),
      receipt: receipt?.source_addr ?? null,
      message: m?.destination ?? null,
    },
    {
      field: "text",
      label: t("mismatch.text"),
      receipt: receiptText,
      message: m === null ? null : bodyStart(m.body, receiptText),
    },
    {
      field: "time",
      label: t("mismatch.time"),
      receipt: receipt?.done_ts ?? receipt?.done_date ?? null,
      message: m === null ? null : formatDateTime(m.created_at_ms),
    },
  ];
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
      <div className="table-scroll">
        <table className="table table-compact" data-testid="mismatch-compare">
          <thead>
            <tr>
              <th scope="col">{t("mismatch.fact")}</th>
              <th scope="col">{t("mismatch.receiptSays")}</th>
              <th scope="col">{t("mismatch.messageSays", { id: String(mismatch.messageId) })}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.field} className={named.has(r.field) ? "mismatch-row" : undefined} data-field={r.field}>
                <th scope="row">{r.label}</th>
                <td className="wrap">{r.receipt ?? "—"}</td>
                <td className="wrap">{r.message ?? (mismatch.target === null ? "…" : "—")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
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
