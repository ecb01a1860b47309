import { useEffect, useId, useState, type FormEvent } from "react";
import { asBackendError, type BackendError } from "../../backend";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";

type Outcome =
  | { readonly kind: "idle" }
  | { readonly kind: "sending" }
  | { readonly kind: "sent" }
  | { readonly kind: "failed"; readonly error: BackendError };

/**
 * Only while the sandbox is the connection: the sandbox plays a handset and sends the text typed
 * here as a reply from that number, so that a first look at the inbox has something in it (and
 * "STOP" shows a number going on the opt-out list).
 */
export function SimulateReply({
  send,
  defaultFrom,
}: {
  send: (from: string, text: string) => Promise<void>;
  /** The open conversation's number, if any: simulating its next reply is the likely wish. */
  defaultFrom: string | null;
}) {
  const { t } = useI18n();
  const ids = { heading: useId(), from: useId(), fromHint: useId(), text: useId(), textHint: useId() };
  const [from, setFrom] = useState(defaultFrom ?? "");
  const [text, setText] = useState("");
  const [outcome, setOutcome] = useState<Outcome>({ kind: "idle" });

  useEffect(() => {
    if (defaultFrom !== null) setFrom(defaultFrom);
  }, [defaultFrom]);

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (outcome.kind === "sending" || from.trim() === "" || text.trim() === "") return;
    setOutcome({ kind: "sending" });
    send(from.trim(), text).then(
      () => {
        setOutcome({ kind: "sent" });
        setText("");
      },
      (e: unknown) => setOutcome({ kind: "failed", error: asBackendError(e) }),
    );
  };

  const errorsOf = (field: string): string[] =>
    outcome.kind === "failed" ? outcome.error.errors.filter((e) => e.field === field).map((e) => e.message) : [];

  return (
    <section className="simulate" aria-labelledby={ids.heading} data-testid="simulate-reply">
      <h3 id={ids.heading}>{t("simulate.title")}</h3>
      <p className="hint">{t("simulate.intro")}</p>
      <form className="form" onSubmit={submit} aria-busy={outcome.kind === "sending"} noValidate data-testid="simulate-form">
        <div className="field">
          <label htmlFor={ids.from}>{t("simulate.from")}</label>
          <input
            id={ids.from}
            type="tel"
            autoComplete="off"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            aria-invalid={errorsOf("from").length > 0}
            aria-describedby={ids.fromHint}
            data-testid="simulate-from"
          />
          <p className="hint" id={ids.fromHint}>
            {t("simulate.from.hint")}
          </p>
        </div>
        <div className="field">
          <label htmlFor={ids.text}>{t("simulate.text")}</label>
          <input
            id={ids.text}
            type="text"
            autoComplete="off"
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={errorsOf("text").length > 0}
            aria-describedby={ids.textHint}
            data-testid="simulate-text"
          />
          <p className="hint" id={ids.textHint}>
            {t("simulate.text.hint")}
          </p>
        </div>
        <div className="row-actions field-wide">
          <button
            type="submit"
            className="button button-secondary"
            disabled={outcome.kind === "sending" || from.trim() === "" || text.trim() === ""}
            data-testid="simulate-submit"
          >
            {outcome.kind === "sending" ? t("simulate.busy") : t("simulate.submit")}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {outcome.kind === "sent" && (
          <p className="notice notice-success" data-testid="simulate-done">
            {t("simulate.done")}
          </p>
        )}
        {outcome.kind === "failed" && <ErrorNotice title={t("simulate.failed")} error={outcome.error} testId="simulate-error" />}
      </div>
    </section>
  );
}
