import { useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { SubmittedMessage } from "../bindings/SubmittedMessage";
import { ErrorNotice } from "../components/ErrorNotice";
import { useI18n } from "../i18n/context";

type Outcome =
  | { readonly kind: "idle" }
  | { readonly kind: "sending" }
  | { readonly kind: "sent"; readonly message: SubmittedMessage }
  | { readonly kind: "failed"; readonly error: BackendError };

/**
 * One request's idempotency key: a double click, or a retry after the answer was lost, queues the
 * message once. Editing the form makes it a new request with a new key. (getRandomValues, unlike
 * randomUUID, also works when the page is served over plain HTTP on a network address.)
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `ui-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Hands one message to the queue, as an integration would: proof that sending works end to end. */
export function SendTestMessage({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const destinationId = useId();
  const destinationHintId = useId();
  const textId = useId();
  const outcomeId = useId();
  const [destination, setDestination] = useState("");
  const [text, setText] = useState("");
  const [requestKey, setRequestKey] = useState(newIdempotencyKey);
  const [outcome, setOutcome] = useState<Outcome>({ kind: "idle" });

  const edited = (set: (value: string) => void) => (value: string) => {
    set(value);
    setRequestKey(newIdempotencyKey());
  };

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (outcome.kind === "sending") return;
    setOutcome({ kind: "sending" });
    backend.submitMessage({ destination, text }, requestKey).then(
      (message) => {
        setOutcome({ kind: "sent", message });
        setText("");
        setRequestKey(newIdempotencyKey());
      },
      (error: unknown) => setOutcome({ kind: "failed", error: asBackendError(error) }),
    );
  };

  const invalid = (field: string): boolean =>
    outcome.kind === "failed" && outcome.error.errors.some((e) => e.field === field);
  const sending = outcome.kind === "sending";

  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{t("send.title")}</h2>
      <p className="panel-intro">{t("send.intro")}</p>
      <form className="form send-form" onSubmit={submit} aria-busy={sending} data-testid="send-form">
        <div className="field">
          <label htmlFor={destinationId}>{t("send.destination")}</label>
          <input
            id={destinationId}
            name="destination"
            type="tel"
            autoComplete="off"
            required
            value={destination}
            onChange={(e) => edited(setDestination)(e.target.value)}
            aria-invalid={invalid("destination")}
            aria-describedby={invalid("destination") ? `${destinationHintId} ${outcomeId}` : destinationHintId}
            data-testid="send-destination"
          />
          <p className="hint" id={destinationHintId}>
            {t("send.destination.hint")}
          </p>
        </div>
        <div className="field">
          <label htmlFor={textId}>{t("send.text")}</label>
          <textarea
            id={textId}
            name="text"
            rows={3}
            required
            value={text}
            onChange={(e) => edited(setText)(e.target.value)}
            aria-invalid={invalid("text")}
            aria-describedby={invalid("text") ? outcomeId : undefined}
            data-testid="send-text"
          />
        </div>
        <button type="submit" className="button" disabled={sending} data-testid="send-submit">
          {sending ? t("send.busy") : t("send.submit")}
        </button>
      </form>
      <div id={outcomeId} aria-live="polite">
        {outcome.kind === "sent" && (
          <p className="notice notice-success" data-testid="send-done" data-id={outcome.message.id}>
            {t("send.done", { id: String(outcome.message.id) })}
          </p>
        )}
        {outcome.kind === "failed" && <ErrorNotice title={t("send.failed")} error={outcome.error} testId="send-error" />}
      </div>
    </section>
  );
}
