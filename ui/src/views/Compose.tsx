import { useEffect, useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { FieldError } from "../bindings/FieldError";
import type { MessageKind } from "../bindings/MessageKind";
import type { Plan } from "../bindings/Plan";
import type { PreviewRow } from "../bindings/PreviewRow";
import type { SmartEncoding } from "../bindings/SmartEncoding";
import type { SmartNote } from "../bindings/SmartNote";
import type { SubmitMessage } from "../bindings/SubmitMessage";
import type { SubmittedMessage } from "../bindings/SubmittedMessage";
import type { Template } from "../bindings/Template";
import { DateTimeField, typedPattern } from "../components/DateTimeField";
import { ErrorNotice } from "../components/ErrorNotice";
import { numberExample } from "../components/numberExamples";
import { useOfficeCountry } from "../components/useOfficeCountry";
import { useI18n } from "../i18n/context";
import type { I18n, Translate } from "../i18n/i18n";
import { missingPlaceholders, unfilledIn, type Unfilled } from "./compose/placeholders";
import { TemplatePicker, useTemplates } from "./compose/TemplatePicker";
import { FieldErrors, TemplateValues } from "./compose/TemplateValues";
import { UnfilledConfirm } from "./compose/UnfilledConfirm";
import { MESSAGE_KINDS } from "./labels";
import { readCopy } from "./message/copy";
import { localToRfc3339, zoneName } from "./localTime";
import { formatAmount } from "./guardrails/money";

type Outcome =
  | { readonly kind: "idle" }
  | { readonly kind: "sending" }
  | { readonly kind: "sent"; readonly message: SubmittedMessage; readonly scheduledAt: number | null }
  | { readonly kind: "failed"; readonly error: BackendError };

type Field = "destination" | "text" | "kind" | "scheduled_at";

/** What the message says: its own text, or a template and the value of each of its placeholders. */
type Content = Pick<SubmitMessage, "text" | "template" | "values">;

export { missingPlaceholders } from "./compose/placeholders";

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
 * What smart encoding did to the text, beside the counter: "2 parts → 1 part: 4 characters
 * replaced (’ « »)"; only what was replaced when the parts stay the same.
 */
export function smartText(i18n: Pick<I18n, "t" | "plural">, note: SmartNote, after: Plan): string {
  const { t, plural } = i18n;
  const chars = [...note.characters].join(" ");
  const replaced = t(`counter.smart.replaced.${plural(note.replaced)}`, { count: note.replaced, chars });
  if (note.before.segments === after.segments) return replaced;
  const parts = (n: number): string => (n === 1 ? t("counter.parts.one") : t("counter.parts.other", { count: n }));
  return t("counter.smart.saves", { before: parts(note.before.segments), after: parts(after.segments), replaced });
}

/** What the compose form asks of smart encoding: typographic characters replaced (the default), or the text as written. */
export function smartEncoding(on: boolean): SmartEncoding {
  return on ? "typography" : "off";
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
  const i18n = useI18n();
  const { t, formatDateTime, formatTag } = i18n;
  const headingId = useId();
  const destinationId = useId();
  const destinationHintId = useId();
  const destinationErrorsId = useId();
  const textId = useId();
  const counterId = useId();
  const smartId = useId();
  const smartHintId = useId();
  const textErrorsId = useId();
  const kindId = useId();
  const laterId = useId();
  const laterHintId = useId();
  const laterErrorsId = useId();
  const outcomeId = useId();
  // "Copy to a new message" (on a message's page) opens this form with its number, text and kind.
  const [seed] = useState(() => readCopy(window.location.hash));
  const [destination, setDestination] = useState(seed?.destination ?? "");
  const [text, setText] = useState(seed?.text ?? "");
  const [template, setTemplate] = useState<Template | null>(null);
  const [values, setValues] = useState<Readonly<Record<string, string>>>({});
  const [kind, setKind] = useState<MessageKind>(seed?.kind ?? "transactional");
  // Send later: a `datetime-local` value in this computer's zone; empty sends now.
  const [later, setLater] = useState("");
  const [laterProblem, setLaterProblem] = useState<FieldError | null>(null);
  const [touched, setTouched] = useState<ReadonlySet<Field>>(new Set());
  const [preview, setPreview] = useState<PreviewRow | null>(null);
  // The currency the preview's cost is in.
  const [currency, setCurrency] = useState("");
  // Typographic characters replaced when that saves parts: on unless the person turns it off.
  const [smart, setSmart] = useState(true);
  const [requestKey, setRequestKey] = useState(newIdempotencyKey);
  const [outcome, setOutcome] = useState<Outcome>({ kind: "idle" });
  // The app checks what is required itself (the form is noValidate): shown once a send was tried.
  const [tried, setTried] = useState(false);
  // A written text holding a template's placeholders, waiting for the person's word before it goes.
  const [confirming, setConfirming] = useState<Unfilled | null>(null);
  const templates = useTemplates(backend);
  const country = useOfficeCountry(backend);
  const example = numberExample(country);

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
      backend.previewMessages({ messages: [{ destination, ...asked, kind, smart_encoding: smartEncoding(smart) }] }).then(
        (answer) => {
          if (!current) return;
          setPreview(answer.rows[0] ?? null);
          setCurrency(answer.currency);
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
  }, [backend, destination, text, template, values, kind, smart, previewDelayMs]);

  const edited =
    <T,>(field: Field, set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setTouched((seen) => (seen.has(field) ? seen : new Set([...seen, field])));
      setRequestKey(newIdempotencyKey());
      setOutcome((o) => (o.kind === "failed" ? { kind: "idle" } : o));
      setConfirming(null);
    };

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    send(false);
  };

  /** Sends, unless something is missing or wrong; `asWritten`: the person confirmed a text holding placeholders. */
  const send = (asWritten: boolean): void => {
    if (outcome.kind === "sending") return;
    setTried(true);
    setConfirming(null);
    const scheduledAt = localToRfc3339(later);
    const problem = laterCheck(i18n, later, scheduledAt);
    setLaterProblem(problem);
    const missing = destination.trim() === "" || (template === null && text.trim() === "");
    // A send refused here leaves no earlier "Queued as message 2" beside the refusal.
    if (problem !== null || missing) {
      setOutcome({ kind: "idle" });
      return;
    }
    const holding = template === null && !asWritten ? unfilledIn(text, loadedTemplates) : null;
    if (holding !== null) {
      setOutcome({ kind: "idle" });
      setConfirming(holding);
      return;
    }
    setOutcome({ kind: "sending" });
    const encoding = smartEncoding(smart);
    const message: SubmitMessage =
      scheduledAt === null
        ? { destination, ...content, kind, smart_encoding: encoding }
        : { destination, ...content, kind, scheduled_at: scheduledAt, smart_encoding: encoding };
    backend.submitMessage(message, requestKey).then(
      (sent) => {
        setOutcome({ kind: "sent", message: sent, scheduledAt: scheduledAt === null ? null : Date.parse(scheduledAt) });
        setText("");
        setValues({});
        setLater("");
        setTouched(new Set());
        setTried(false);
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
  const loadedTemplates = templates.loaded.kind === "ready" ? templates.loaded.templates : [];
  const required = (field: Field, value: string): FieldError[] =>
    tried && value.trim() === "" ? [{ field, code: "required", params: {}, message: t("form.required") }] : [];
  const destinationErrors = [...required("destination", destination), ...errorsOf("destination")];
  const textErrors = template === null ? [...required("text", text), ...errorsOf("text")] : [];
  const kindErrors = errorsOf("kind");
  const laterErrors = laterProblem !== null ? [laterProblem] : outcome.kind === "failed" ? errorsOf("scheduled_at") : [];
  // A template's problems, as the engine answers them as the person fills it in (or once sent):
  // the placeholders still without a value, what is wrong with the text it fills, a template
  // since deleted.
  const engineErrors = outcome.kind === "failed" ? outcome.error.errors : (preview?.errors ?? []);
  const unfilled = template === null ? [] : missingPlaceholders(engineErrors);
  const refusedValues =
    template === null || outcome.kind !== "failed" ? [] : outcome.error.errors.filter((e) => e.code === "template_value_missing");
  const templateErrors =
    template === null
      ? []
      : engineErrors.filter((e) => ["values", "template", "text"].includes(e.field) && e.code !== "template_value_missing");
  const sending = outcome.kind === "sending";
  const plan = template === null && text === "" ? null : (preview?.plan ?? null);
  const normalised = destination.trim() === "" ? null : (preview?.destination ?? null);
  const note = plan === null ? null : (preview?.smart ?? null);
  // The cost of a message that would be accepted, on the connection it would be queued for.
  const cost = plan !== null && preview !== null && preview.errors.length === 0 ? preview.cost : null;
  /**
   * A template chosen sends its text filled with the values given; leaving it (no template, or
   * it was deleted) keeps the text as the engine last filled it, else the template's, to edit.
   */
  const pick = (next: Template | null): void => {
    if (next === null && template !== null) edited("text", setText)(preview?.text ?? template.text);
    if (next !== null) setValues((v) => Object.fromEntries(next.placeholders.map((name) => [name, v[name] ?? ""])));
    setTemplate(next);
    setConfirming(null);
    setRequestKey(newIdempotencyKey());
  };
  const describedBy = (...ids: (string | false)[]): string | undefined =>
    ids.filter((id): id is string => id !== false).join(" ") || undefined;

  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{t("send.title")}</h2>
      <p className="panel-intro">{t("send.intro")}</p>
      <form className="form send-form" onSubmit={submit} aria-busy={sending} noValidate data-testid="send-form">
        <div className="field">
          <label htmlFor={destinationId}>{t("send.destination")}</label>
          <input
            id={destinationId}
            name="destination"
            type="tel"
            autoComplete="off"
            required
            aria-required="true"
            value={destination}
            onChange={(e) => edited("destination", setDestination)(e.target.value)}
            aria-invalid={destinationErrors.length > 0}
            aria-describedby={describedBy(destinationHintId, destinationErrors.length > 0 && destinationErrorsId)}
            data-testid="send-destination"
          />
          <p className="hint" id={destinationHintId}>
            {normalised !== null && destinationErrors.length === 0 ? (
              <span data-testid="send-normalised">{t("send.normalised", { number: normalised })}</span>
            ) : example === null ? (
              t("send.destination.hint")
            ) : (
              t("number.hint.example", { national: example.national, international: example.international })
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
          <DateTimeField
            id={laterId}
            name="scheduled_at"
            withTime
            value={later}
            onChange={(value) => {
              setLaterProblem(null);
              edited("scheduled_at", setLater)(value);
            }}
            invalid={laterErrors.length > 0}
            describedBy={describedBy(laterHintId, laterErrors.length > 0 && laterErrorsId)}
            testId="send-later"
          />
          <p className="hint" id={laterHintId} data-testid="send-later-zone">
            {t("send.later.hint", { zone: zoneName(formatTag) })}
          </p>
          <FieldErrors id={laterErrorsId} errors={laterErrors} testId="send-later-errors" />
        </div>
        <TemplatePicker
          backend={backend}
          text={template === null ? text : ""}
          onPick={pick}
          templates={templates}
          selected={template?.id ?? null}
        />
        {template !== null && (
          <TemplateValues
            template={template}
            values={values}
            onChange={(next) => edited("text", setValues)(next)}
            filled={preview?.text ?? null}
            counter={plan === null ? null : counterText(t, plan)}
            unfilled={unfilled}
            refused={refusedValues}
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
            aria-required="true"
            value={text}
            onChange={(e) => edited("text", setText)(e.target.value)}
            aria-invalid={textErrors.length > 0}
            aria-describedby={describedBy(
              plan !== null && counterId,
              note !== null && smartId,
              textErrors.length > 0 && textErrorsId,
            )}
            data-testid="send-text"
          />
          {plan !== null && (
            <p className="hint counter" id={counterId} data-testid="send-counter">
              {counterText(t, plan)}
            </p>
          )}
          {plan !== null && note !== null && (
            <p
              className="hint counter"
              id={smartId}
              data-testid="send-smart"
              data-before={note.before.segments}
              data-after={plan.segments}
              data-replaced={note.replaced}
            >
              {smartText(i18n, note, plan)}
            </p>
          )}
          <FieldErrors id={textErrorsId} errors={textErrors} testId="send-text-errors" />
          </div>
        )}
        {template !== null && plan !== null && note !== null && (
          <p className="hint counter field-wide" data-testid="send-smart" data-before={note.before.segments} data-after={plan.segments}>
            {smartText(i18n, note, plan)}
          </p>
        )}
        <div className="field field-wide">
          <label className="choice">
            <input
              type="checkbox"
              name="smart_encoding"
              checked={smart}
              onChange={(e) => edited("text", setSmart)(e.target.checked)}
              aria-describedby={smartHintId}
              data-testid="send-smart-encoding"
            />
            <span>{t("send.smart")}</span>
          </label>
          <p className="hint" id={smartHintId}>
            {t("send.smart.hint")}
          </p>
        </div>
        {cost !== null && (
          <p className="send-cost field-wide" data-testid="send-cost" data-cost={cost} data-currency={currency}>
            {t("send.cost", { cost: formatAmount(cost, currency, formatTag) })}
          </p>
        )}
        {confirming !== null && (
          <UnfilledConfirm
            unfilled={confirming}
            onUseTemplate={() => pick(confirming.template)}
            onSendAnyway={() => send(true)}
          />
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

/** What is wrong with a send-later time before it is sent: unreadable (said with the way to write it), or already past. */
export function laterCheck(i18n: Pick<I18n, "t" | "formatTag">, value: string, at: string | null): FieldError | null {
  const { t } = i18n;
  if (value.trim() === "") return null;
  if (at === null) {
    const pattern = typedPattern(i18n, true);
    // The reason picks the words that say how to write it (`fieldError.invalid_time.typed`).
    return { field: "scheduled_at", code: "invalid_time", params: { reason: "typed", pattern }, message: t("date.invalid", { pattern }) };
  }
  if (Date.parse(at) <= Date.now()) return { field: "scheduled_at", code: "in_past", params: {}, message: t("send.later.past") };
  return null;
}
