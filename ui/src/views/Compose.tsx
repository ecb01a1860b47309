import { useEffect, useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { FieldError } from "../bindings/FieldError";
import type { MessageKind } from "../bindings/MessageKind";
import type { Plan } from "../bindings/Plan";
import type { PreviewRow } from "../bindings/PreviewRow";
import type { SubmitMessage } from "../bindings/SubmitMessage";
import type { SubmittedMessage } from "../bindings/SubmittedMessage";
import type { Template } from "../bindings/Template";
import { ErrorNotice } from "../components/ErrorNotice";
import { useI18n } from "../i18n/context";
import type { Translate } from "../i18n/i18n";
import { FieldProblem } from "../components/FieldProblem";
import { TemplatePicker } from "./compose/TemplatePicker";
import { MESSAGE_KINDS } from "./labels";
import { localToRfc3339, localZone } from "./localTime";

type Outcome =
  | { readonly kind: "idle" }
  | { readonly kind: "sending" }
  | { readonly kind: "sent"; readonly message: SubmittedMessage; readonly scheduledAt: number | null }
  | { readonly kind: "failed"; readonly error: BackendError };

type Field = "destination" | "text" | "kind" | "scheduled_at";

/** What the message says: its own text, or a template and the value of each of its placeholders. */
type Content = Pick<SubmitMessage, "text" | "template" | "values">;

/** The engine's words for the placeholders of a template left without a value. */
export function missingPlaceholders(errors: readonly FieldError[]): string[] {
  return errors.flatMap((e) => (e.code === "template_value_missing" && e.params["placeholder"] !== undefined ? [e.params["placeholder"]] : []));
}

/** How long typing must pause before the counter asks the engine again. */
export const PREVIEW_DELAY_MS = 200;

/**
 * One request's idempotency key: a double click, or a retry after the answer was lost, queues the
 * message once. Editing the form makes it a new request with a new key. (getRandomValues, unlike
 * randomUUID, also works when the page is served over plain HTTP on a network address.)
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `ui-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The counter under the text: "GSM 7-bit · 1 part · 45 characters left", or "Unicode (UCS-2)
 * because of “ê” · 2 parts · …": the character that halves what fits in a part is named. */
export function counterText(t: Translate, plan: Plan): string {
  const encoding =
    plan.encoding === "gsm7"
      ? t("counter.gsm7")
      : plan.unicode_because
        ? t("counter.ucs2.because", { char: plan.unicode_because })
        : t("counter.ucs2");
  const parts = plan.segments === 1 ? t("counter.parts.one") : t("counter.parts.other", { count: plan.segments });
  const left =
    plan.segments > 1
      ? t("counter.left.inPart", { count: plan.remaining_in_segment })
      : t("counter.left", { count: plan.remaining_in_segment });
  return [encoding, parts, left].join(" · ");
}

/**
 * Writes one message and hands it to the queue. As the person types, the engine checks it (it
 * writes nothing): the number as it will be sent, the encoding and parts, and what is wrong with a
 * field once they have typed in it. With a template, the person gives each of its placeholders a
 * value; the engine fills the template and answers the text as it will be sent.
 */
export function Compose({
  backend,
  previewDelayMs = PREVIEW_DELAY_MS,
  onOpenMessage,
}: {
  backend: Backend;
  previewDelayMs?: number;
  /** Opens a message queued here (offered beside the word that it was queued). */
  onOpenMessage?: (id: number) => void;
}) {
  const { t, formatDateTime } = useI18n();
  const headingId = useId();
  const destinationId = useId();
  const destinationHintId = useId();
  const destinationErrorsId = useId();
  const textId = useId();
  const counterId = useId();
  const textErrorsId = useId();
  const kindId = useId();
  const laterId = useId();
  const laterHintId = useId();
  const laterErrorsId = useId();
  const outcomeId = useId();
  const [destination, setDestination] = useState("");
  const [text, setText] = useState("");
  const [template, setTemplate] = useState<Template | null>(null);
  const [values, setValues] = useState<Readonly<Record<string, string>>>({});
  const [kind, setKind] = useState<MessageKind>("transactional");
  // Send later: a `datetime-local` value in this computer's zone; empty sends now.
  const [later, setLater] = useState("");
  const [laterProblem, setLaterProblem] = useState<FieldError | null>(null);
  const [touched, setTouched] = useState<ReadonlySet<Field>>(new Set());
  const [preview, setPreview] = useState<PreviewRow | null>(null);
  const [requestKey, setRequestKey] = useState(newIdempotencyKey);
  const [outcome, setOutcome] = useState<Outcome>({ kind: "idle" });

  const content: Content = template === null ? { text } : { template: template.name, values };

  // The live check, once typing pauses; an answer to an older text is dropped.
  useEffect(() => {
    if (destination === "" && text === "" && template === null) {
      setPreview(null);
      return undefined;
    }
    let current = true;
    const timer = setTimeout(() => {
      const asked: Content = template === null ? { text } : { template: template.name, values };
      backend.previewMessages({ messages: [{ destination, ...asked, kind }] }).then(
        (answer) => {
          if (current) setPreview(answer.rows[0] ?? null);
        },
        () => {
          // The counter is a help, not a requirement: without it the form still sends.
          if (current) setPreview(null);
        },
      );
    }, previewDelayMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [backend, destination, text, template, values, kind, previewDelayMs]);

  const edited =
    <T,>(field: Field, set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setTouched((seen) => (seen.has(field) ? seen : new Set([...seen, field])));
      setRequestKey(newIdempotencyKey());
      setOutcome((o) => (o.kind === "failed" ? { kind: "idle" } : o));
    };

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (outcome.kind === "sending") return;
    const scheduledAt = localToRfc3339(later);
    const problem = laterCheck(t, later, scheduledAt);
    setLaterProblem(problem);
    if (problem !== null) return;
    setOutcome({ kind: "sending" });
    const message: SubmitMessage =
      scheduledAt === null ? { destination, ...content, kind } : { destination, ...content, kind, scheduled_at: scheduledAt };
    backend.submitMessage(message, requestKey).then(
      (sent) => {
        setOutcome({ kind: "sent", message: sent, scheduledAt: scheduledAt === null ? null : Date.parse(scheduledAt) });
        setText("");
        setValues({});
        setLater("");
        setTouched(new Set());
        setRequestKey(newIdempotencyKey());
      },
      (error: unknown) => setOutcome({ kind: "failed", error: asBackendError(error) }),
    );
  };

  /** The engine's refusal after a send; else, once the person typed in the field, the live check's. */
  const errorsOf = (field: Field): FieldError[] => {
    if (outcome.kind === "failed") return outcome.error.errors.filter((e) => e.field === field);
    if (!touched.has(field) || preview === null) return [];
    return preview.errors.filter((e) => e.field === field);
  };
  const destinationErrors = errorsOf("destination");
  const textErrors = errorsOf("text");
  const kindErrors = errorsOf("kind");
  const laterErrors = laterProblem !== null ? [laterProblem] : outcome.kind === "failed" ? errorsOf("scheduled_at") : [];
  // A template's problems, as the engine answers them as the person fills it in (or once sent):
  // the placeholders still without a value, what is wrong with the text it fills, a template
  // since deleted.
  const engineErrors = outcome.kind === "failed" ? outcome.error.errors : (preview?.errors ?? []);
  const unfilled = template === null ? [] : missingPlaceholders(engineErrors);
  const templateErrors =
    template === null
      ? []
      : engineErrors.filter((e) => ["values", "template", "text"].includes(e.field) && e.code !== "template_value_missing");
  const sending = outcome.kind === "sending";
  const plan = template === null && text === "" ? null : (preview?.plan ?? null);
  const normalised = destination.trim() === "" ? null : (preview?.destination ?? null);
  /**
   * A template chosen sends its text filled with the values given; leaving it (no template, or
   * it was deleted) keeps the text as the engine last filled it, else the template's, to edit.
   */
  const pick = (next: Template | null): void => {
    if (next === null && template !== null) edited("text", setText)(preview?.text ?? template.text);
    if (next !== null) setValues((v) => Object.fromEntries(next.placeholders.map((name) => [name, v[name] ?? ""])));
    setTemplate(next);
    setRequestKey(newIdempotencyKey());
  };
  const describedBy = (...ids: (string | false)[]): string | undefined =>
    ids.filter((id): id is string => id !== false).join(" ") || undefined;

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
            onChange={(e) => edited("destination", setDestination)(e.target.value)}
            aria-invalid={destinationErrors.length > 0}
            aria-describedby={describedBy(destinationHintId, destinationErrors.length > 0 && destinationErrorsId)}
            data-testid="send-destination"
          />
          <p className="hint" id={destinationHintId}>
            {normalised !== null && destinationErrors.length === 0 ? (
              <span data-testid="send-normalised">{t("send.normalised", { number: normalised })}</span>
            ) : (
              t("send.destination.hint")
            )}
          </p>
          <FieldErrors id={destinationErrorsId} errors={destinationErrors} testId="send-destination-errors" />
        </div>
        <div className="field field-narrow">
          <label htmlFor={kindId}>{t("send.kind")}</label>
          <select
            id={kindId}
            name="kind"
            value={kind}
            onChange={(e) => edited("kind", setKind)(e.target.value as MessageKind)}
            aria-invalid={kindErrors.length > 0}
            data-testid="send-kind"
          >
            {MESSAGE_KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`messageKind.${k}`)}
              </option>
            ))}
          </select>
          <FieldErrors errors={kindErrors} testId="send-kind-errors" />
        </div>
        <div className="field field-narrow">
          <label htmlFor={laterId}>{t("send.later")}</label>
          <input
            id={laterId}
            name="scheduled_at"
            type="datetime-local"
            value={later}
            onChange={(e) => {
              setLaterProblem(null);
              edited("scheduled_at", setLater)(e.target.value);
            }}
            aria-invalid={laterErrors.length > 0}
            aria-describedby={describedBy(laterHintId, laterErrors.length > 0 && laterErrorsId)}
            data-testid="send-later"
          />
          <p className="hint" id={laterHintId} data-testid="send-later-zone">
            {t("send.later.hint", { zone: localZone() })}
          </p>
          <FieldErrors id={laterErrorsId} errors={laterErrors} testId="send-later-errors" />
        </div>
        <TemplatePicker backend={backend} text={template === null ? text : ""} onPick={pick} />
        {template !== null && (
          <TemplateValues
            template={template}
            values={values}
            onChange={(next) => edited("text", setValues)(next)}
            filled={preview?.text ?? null}
            counter={plan === null ? null : counterText(t, plan)}
            unfilled={unfilled}
            errors={templateErrors}
          />
        )}
        {template === null && (
          <div className="field field-wide">
          <label htmlFor={textId}>{t("send.text")}</label>
          <textarea
            id={textId}
            name="text"
            rows={3}
            required
            value={text}
            onChange={(e) => edited("text", setText)(e.target.value)}
            aria-invalid={textErrors.length > 0}
            aria-describedby={describedBy(plan !== null && counterId, textErrors.length > 0 && textErrorsId)}
            data-testid="send-text"
          />
          {plan !== null && (
            <p className="hint counter" id={counterId} data-testid="send-counter">
              {counterText(t, plan)}
            </p>
          )}
          <FieldErrors id={textErrorsId} errors={textErrors} testId="send-text-errors" />
          </div>
        )}
        <button type="submit" className="button" disabled={sending} data-testid="send-submit">
          {sending ? t("send.busy") : t("send.submit")}
        </button>
      </form>
      <div id={outcomeId} aria-live="polite">
        {outcome.kind === "sent" && (
          <div className="notice notice-success send-done">
            <p data-testid="send-done" data-id={outcome.message.id}>
              {outcome.scheduledAt === null
                ? t("send.done", { id: String(outcome.message.id) })
                : t("send.done.scheduled", { id: String(outcome.message.id), when: formatDateTime(outcome.scheduledAt) })}
            </p>
            {onOpenMessage && (
              <button
                type="button"
                className="link-button"
                onClick={() => onOpenMessage(outcome.message.id)}
                data-testid="send-open"
              >
                {t("send.open", { id: String(outcome.message.id) })}
              </button>
            )}
          </div>
        )}
        {outcome.kind === "failed" && <ErrorNotice title={t("send.failed")} error={outcome.error} testId="send-error" />}
      </div>
    </section>
  );
}

/** What is wrong with a send-later time before it is sent: unreadable, or already past. */
export function laterCheck(t: Translate, value: string, at: string | null): FieldError | null {
  if (value.trim() === "") return null;
  if (at === null) return { field: "scheduled_at", code: "invalid_time", params: {}, message: t("send.later.invalid") };
  if (Date.parse(at) <= Date.now()) return { field: "scheduled_at", code: "in_past", params: {}, message: t("send.later.past") };
  return null;
}

/**
 * A template's text, a field for the value of each of its placeholders, and the text as the engine
 * filled it (with its counter), or the placeholders still without a value.
 */
function TemplateValues({
  template,
  values,
  onChange,
  filled,
  counter,
  unfilled,
  errors,
}: {
  template: Template;
  values: Readonly<Record<string, string>>;
  onChange: (values: Readonly<Record<string, string>>) => void;
  /** The text as the engine filled it; null until every placeholder has a value. */
  filled: string | null;
  counter: string | null;
  unfilled: readonly string[];
  errors: readonly FieldError[];
}) {
  const { t } = useI18n();
  const ids = { legend: useId(), filled: useId() };
  const fieldId = useId();
  return (
    <fieldset className="field field-wide template-values" aria-describedby={ids.filled} data-testid="send-template">
      <legend id={ids.legend}>{t("send.template.using", { name: template.name })}</legend>
      <p className="hint message-body" data-testid="send-template-text">
        {template.text}
      </p>
      {template.placeholders.map((name, i) => (
        <div className="field" key={name}>
          <label htmlFor={`${fieldId}-${i}`}>{`{${name}}`}</label>
          <input
            id={`${fieldId}-${i}`}
            autoComplete="off"
            value={values[name] ?? ""}
            onChange={(e) => onChange({ ...values, [name]: e.target.value })}
            aria-invalid={unfilled.includes(name)}
            data-testid="send-value"
            data-name={name}
          />
        </div>
      ))}
      <div id={ids.filled} aria-live="polite">
        {filled !== null && (
          <>
            <p className="hint">{t("send.filled")}</p>
            <p className="message-body" data-testid="send-filled">
              {filled}
            </p>
          </>
        )}
        {counter !== null && (
          <p className="hint counter" data-testid="send-counter">
            {counter}
          </p>
        )}
        {unfilled.length > 0 && (
          <p className="hint notice-warning" data-testid="send-placeholders">
            {t("send.placeholders", { names: unfilled.map((n) => `{${n}}`).join(", ") })}
          </p>
        )}
      </div>
      <FieldErrors errors={errors} testId="send-template-errors" />
    </fieldset>
  );
}

function FieldErrors({ id, errors, testId }: { id?: string; errors: readonly FieldError[]; testId: string }) {
  if (errors.length === 0) return null;
  return (
    <ul className="field-problems" id={id} data-testid={testId}>
      {errors.map((e) => (
        <li key={`${e.code}:${e.message}`}>
          <FieldProblem error={e} />
        </li>
      ))}
    </ul>
  );
}
