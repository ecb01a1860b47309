import { useEffect, useId, useState, type KeyboardEvent } from "react";
import { useAccess } from "../../access/context";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { FactCheck } from "../../bindings/FactCheck";
import type { MessageSummary } from "../../bindings/MessageSummary";
import type { ReceiptView } from "../../bindings/ReceiptView";
import { Badge } from "../../components/Badge";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { factValues, VERDICT_TONE } from "./facts";
import {
  expectedIdFormat,
  idHint,
  pickerFilter,
  suggestedSearch,
  WINDOWS_HOURS,
  type IdFormat,
  type PickerSearch,
  type WindowHours,
} from "./picker";
import { ShownNumber } from "../message/removed";

/** Messages listed at most per search. */
export const PICKER_LIMIT = 20;

/** The engine's comparison of the receipt with each message listed, by message id. */
type Compared =
  | { readonly status: "loading" }
  | { readonly status: "error"; readonly error: BackendError }
  | { readonly status: "ready"; readonly facts: ReadonlyMap<number, readonly FactCheck[]> };

type Found =
  | { readonly status: "loading" }
  | { readonly status: "error"; readonly error: BackendError }
  | {
      readonly status: "ready";
      readonly items: readonly MessageSummary[];
      readonly more: boolean;
      readonly compared: Compared;
    };

/**
 * Finds the message an unmatched receipt belongs to, instead of asking for its number: by number,
 * a time window before the receipt arrived, and words of its text, through the message list. Each
 * message found comes with every fact as the engine compares it with the receipt (agrees, differs,
 * cannot tell), by the comparison it checks again when the receipt is attached; choosing one is
 * the operator's decision.
 */
export function MessagePicker({
  backend,
  exceptionId,
  receipt,
  selected,
  onPick,
}: {
  backend: Backend;
  /** The exception whose receipt the messages are compared with. */
  exceptionId: number;
  receipt: ReceiptView;
  selected: number | null;
  onPick: (id: number) => void;
}) {
  const { t, formatDateTime } = useI18n();
  const { may } = useAccess();
  const ids = { heading: useId(), number: useId(), window: useId(), text: useId() };
  const [search, setSearch] = useState<PickerSearch>(() => suggestedSearch(receipt));
  const [asked, setAsked] = useState<PickerSearch>(search);
  const [found, setFound] = useState<Found>({ status: "loading" });
  // The connection's id format, from the settings (admins only); null: unknown, judged by shape.
  const [format, setFormat] = useState<IdFormat | null | "unread">(may.admin ? "unread" : null);

  useEffect(() => {
    let live = true;
    setFound({ status: "loading" });
    backend.listMessages(pickerFilter(asked, receipt.received_at_ms, PICKER_LIMIT)).then(
      (page) => {
        if (!live) return;
        const listed = { items: page.items, more: page.next_cursor !== null };
        const compared: Compared = page.items.length === 0 ? { status: "ready", facts: new Map() } : { status: "loading" };
        setFound({ status: "ready", ...listed, compared });
        if (page.items.length === 0) return;
        backend.compareCandidates(exceptionId, { messages: page.items.map((m) => m.id) }).then(
          (answer) => {
            const facts = new Map(answer.messages.map((m) => [m.message_id, m.facts] as const));
            if (live) setFound({ status: "ready", ...listed, compared: { status: "ready", facts } });
          },
          (error: unknown) => {
            if (live) setFound({ status: "ready", ...listed, compared: { status: "error", error: asBackendError(error) } });
          },
        );
      },
      (error: unknown) => {
        if (live) setFound({ status: "error", error: asBackendError(error) });
      },
    );
    return () => {
      live = false;
    };
  }, [backend, exceptionId, asked, receipt.received_at_ms]);

  useEffect(() => {
    if (!may.admin) return;
    let live = true;
    backend.settings().then(
      (s) => {
        if (live) setFormat(expectedIdFormat(s.fields, receipt.id_source));
      },
      () => {
        if (live) setFormat(null);
      },
    );
    return () => {
      live = false;
    };
  }, [backend, may.admin, receipt.id_source]);

  const run = (): void => setAsked({ ...search });
  const onEnter = (event: KeyboardEvent<HTMLElement>): void => {
    // Enter searches; it must not submit the decision around the picker.
    if (event.key === "Enter") {
      event.preventDefault();
      run();
    }
  };

  return (
    <section className="picker field-wide" aria-labelledby={ids.heading} data-testid="picker">
      <h4 id={ids.heading}>{t("picker.title")}</h4>
      <p className="hint">{t("picker.intro")}</p>
      {format !== "unread" && <IdFormatHint id={receipt.message_id_raw} format={format} known={may.admin} />}
      <div className="form filters" role="search" aria-label={t("picker.search")}>
        <div className="field field-narrow">
          <label htmlFor={ids.number}>{t("picker.number")}</label>
          <input
            id={ids.number}
            inputMode="tel"
            autoComplete="off"
            value={search.number}
            onChange={(e) => setSearch({ ...search, number: e.target.value })}
            onKeyDown={onEnter}
            data-testid="picker-number"
          />
        </div>
        <div className="field field-narrow">
          <label htmlFor={ids.window}>{t("picker.window")}</label>
          <select
            id={ids.window}
            value={search.windowHours}
            onChange={(e) => setSearch({ ...search, windowHours: Number(e.target.value) as WindowHours })}
            data-testid="picker-window"
          >
            {WINDOWS_HOURS.map((h) => (
              <option key={h} value={h}>
                {t(`picker.window.${h}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.text}>{t("picker.text")}</label>
          <input
            id={ids.text}
            autoComplete="off"
            value={search.text}
            onChange={(e) => setSearch({ ...search, text: e.target.value })}
            onKeyDown={onEnter}
            data-testid="picker-text"
          />
        </div>
        <div className="field field-button">
          <button type="button" className="button button-secondary" onClick={run} data-testid="picker-search">
            {t("picker.find")}
          </button>
        </div>
      </div>
      <div aria-live="polite">
        {found.status === "loading" && (
          <p className="status" role="status">
            <span className="spinner" aria-hidden="true" />
            {t("picker.loading")}
          </p>
        )}
        {found.status === "error" && <ErrorNotice title={t("picker.error")} error={found.error} onRetry={run} testId="picker-error" />}
        {found.status === "ready" && found.items.length === 0 && (
          <p className="empty" data-testid="picker-empty">
            {t("picker.none")}
          </p>
        )}
        {found.status === "ready" && found.items.length > 0 && (
          <p className="hint" data-testid="picker-count">
            {found.more ? t("picker.countMore", { count: found.items.length }) : t("picker.count", { count: found.items.length })}
          </p>
        )}
      </div>
      {found.status === "ready" && found.compared.status === "error" && (
        <ErrorNotice title={t("picker.compareError")} error={found.compared.error} onRetry={run} testId="picker-compare-error" />
      )}
      {found.status === "ready" && found.items.length > 0 && (
        <fieldset className="picker-list">
          <legend className="visually-hidden">{t("picker.legend")}</legend>
          {found.items.map((m) => (
            <PickerCandidate
              key={m.id}
              message={m}
              facts={found.compared.status === "ready" ? (found.compared.facts.get(m.id) ?? null) : null}
              comparing={found.compared.status === "loading"}
              picked={selected === m.id}
              onPick={() => onPick(m.id)}
              formatTime={formatDateTime}
            />
          ))}
        </fieldset>
      )}
    </section>
  );
}

function PickerCandidate({
  message: m,
  facts,
  comparing,
  picked,
  onPick,
  formatTime,
}: {
  message: MessageSummary;
  /** The engine's comparison with the receipt; null while it is asked, or when it could not be. */
  facts: readonly FactCheck[] | null;
  comparing: boolean;
  picked: boolean;
  onPick: () => void;
  formatTime: (ms: number) => string;
}) {
  const { t } = useI18n();
  const inputId = useId();
  const differs = facts?.filter((f) => f.verdict === "differs").length ?? null;
  return (
    <article
      className={picked ? "evidence-card picked" : "evidence-card"}
      data-testid="picker-candidate"
      data-id={m.id}
      data-differs={differs ?? undefined}
    >
      <label className="choice" htmlFor={inputId}>
        <input id={inputId} type="radio" name="picked-message" checked={picked} onChange={onPick} data-testid="picker-pick" />
        <span>
          <span className="choice-label">
            {t("exceptions.messageRef", { id: String(m.id) })} · <ShownNumber value={m.destination} /> ·{" "}
            {formatTime(m.created_at_ms)}
          </span>
          <span className="message-body">{m.preview}</span>
          <span className="hint">
            {differs === null
              ? comparing
                ? t("picker.comparing")
                : t("picker.notCompared")
              : differs === 0
                ? t("picker.allAgree")
                : t("picker.differs", { count: differs })}
          </span>
        </span>
      </label>
      {facts !== null && (
        <table className="facts-table" data-testid="picker-facts">
          <thead>
            <tr>
              <th scope="col">{t("candidates.fact")}</th>
              <th scope="col">{t("candidates.receiptSays")}</th>
              <th scope="col">{t("picker.messageSays")}</th>
              <th scope="col">{t("candidates.verdict")}</th>
            </tr>
          </thead>
          <tbody>
            {facts.map((f) => {
              const values = factValues(f, formatTime);
              return (
                <tr key={f.fact} data-field={f.fact} data-verdict={f.verdict} data-why={f.why ?? undefined}>
                  <th scope="row">{t(`picker.field.${f.fact}`)}</th>
                  <td>{values.receipt === null ? <span className="muted">{t("picker.notSaid")}</span> : <code>{values.receipt}</code>}</td>
                  <td>
                    <code>{values.message}</code>
                  </td>
                  <td>
                    <Badge tone={VERDICT_TONE[f.verdict]}>{t(`picker.verdict.${f.verdict}`)}</Badge>
                    {f.why !== null && f.why !== "not_in_receipt" && <span className="hint"> {t(`picker.why.${f.why}`)}</span>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </article>
  );
}

/** Says when the receipt's id looks written in another base than the connection's (or, unknown, what it looks like). */
function IdFormatHint({ id, format, known }: { id: string | null; format: IdFormat | null; known: boolean }) {
  const { t } = useI18n();
  const hint = idHint(id, format);
  if (hint === null) return null;
  return (
    <div className="notice notice-info" data-testid="picker-id-hint" data-kind={hint.kind}>
      <p>{t(`picker.idHint.${hint.kind}`, { id: hint.id, other: hint.other })}</p>
      {(hint.kind === "looks_hex" || hint.kind === "looks_decimal") && (
        <p className="hint">{known ? t("picker.idHint.textFormat") : t("picker.idHint.shapeOnly")}</p>
      )}
    </div>
  );
}
