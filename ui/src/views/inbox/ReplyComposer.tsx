import { useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { MessageKind } from "../../bindings/MessageKind";
import type { OptOutEntry } from "../../bindings/OptOutEntry";
import type { SubmittedMessage } from "../../bindings/SubmittedMessage";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatRoute } from "../../hooks/useHashRoute";
import { useI18n } from "../../i18n/context";
import { newIdempotencyKey } from "../Compose";

/** An answer in a conversation is a transactional message: it is about what the person wrote. */
export const REPLY_KIND: MessageKind = "transactional";

type Outcome =
  | { readonly kind: "idle" }
  | { readonly kind: "sending" }
  | { readonly kind: "sent"; readonly message: SubmittedMessage }
  | { readonly kind: "failed"; readonly error: BackendError };

/**
 * Answers a conversation: a normal message to its number, queued and sent like any other. While
 * the number is on the opt-out list for such messages, the form is disabled and says why.
 */
export function ReplyComposer({ backend, phone, optOut }: { backend: Backend; phone: string; optOut: OptOutEntry | null }) {
  const { t } = useI18n();
  const ids = { heading: useId(), text: useId(), hint: useId(), blocked: useId() };
  const [text, setText] = useState("");
  const [requestKey, setRequestKey] = useState(newIdempotencyKey);
  const [outcome, setOutcome] = useState<Outcome>({ kind: "idle" });
  const optedOut = optOut !== null && optOut.kinds.includes(REPLY_KIND);
  const sending = outcome.kind === "sending";

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (sending || optedOut || text.trim() === "") return;
    setOutcome({ kind: "sending" });
    backend.submitMessage({ destination: phone, text, kind: REPLY_KIND }, requestKey).then(
      (message) => {
        setOutcome({ kind: "sent", message });
        setText("");
        setRequestKey(newIdempotencyKey());
      },
      (error: unknown) => setOutcome({ kind: "failed", error: asBackendError(error) }),
    );
  };

  return (
    <section className="composer" aria-labelledby={ids.heading} data-testid="reply-composer" data-blocked={optedOut}>
      <h3 id={ids.heading}>{t("composer.title", { phone })}</h3>
      {optedOut && (
        <p className="notice notice-info" id={ids.blocked} data-testid="composer-blocked">
          {t("composer.blocked")}
        </p>
      )}
      <form className="form composer-form" onSubmit={submit} aria-busy={sending} noValidate data-testid="composer-form">
        <div className="field field-wide">
          <label htmlFor={ids.text}>{t("composer.text")}</label>
          <textarea
            id={ids.text}
            rows={3}
            value={text}
            disabled={optedOut}
            onChange={(e) => {
              setText(e.target.value);
              setRequestKey(newIdempotencyKey());
              setOutcome((o) => (o.kind === "failed" ? { kind: "idle" } : o));
            }}
            aria-describedby={optedOut ? ids.blocked : ids.hint}
            data-testid="composer-text"
          />
          <p className="hint" id={ids.hint}>
            {t("composer.hint")}
          </p>
        </div>
        <div className="row-actions field-wide">
          <button
            type="submit"
            className="button"
            disabled={optedOut || sending || text.trim() === ""}
            aria-describedby={optedOut ? ids.blocked : undefined}
            data-testid="composer-submit"
          >
            {sending ? t("send.busy") : t("composer.submit")}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {outcome.kind === "sent" && (
          <p className="notice notice-success" data-testid="composer-done" data-id={outcome.message.id}>
            {t("composer.done")}{" "}
            <a href={formatRoute({ section: "messages", id: outcome.message.id })}>
              {t("conversation.sent", { id: String(outcome.message.id) })}
            </a>
          </p>
        )}
        {outcome.kind === "failed" && <ErrorNotice title={t("send.failed")} error={outcome.error} testId="composer-error" />}
      </div>
    </section>
  );
}
