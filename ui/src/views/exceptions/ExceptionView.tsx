import { useCallback, useEffect, useId, useRef, useState } from "react";
import { useAccess } from "../../access/context";
import type { Backend, BackendError } from "../../backend";
import type { ChangeEvent } from "../../bindings/ChangeEvent";
import type { ExceptionDetail } from "../../bindings/ExceptionDetail";
import type { ExceptionSummary } from "../../bindings/ExceptionSummary";
import type { MessageSummary } from "../../bindings/MessageSummary";
import { Badge } from "../../components/Badge";
import { Disclosure } from "../../components/Disclosure";
import { ErrorNotice } from "../../components/ErrorNotice";
import { DetailBar } from "../../components/DetailBar";
import { Fact, Facts } from "../../components/Facts";
import { useBackendData } from "../../hooks/useBackendData";
import { useEscape } from "../../hooks/useEscape";
import { useI18n } from "../../i18n/context";
import type { Translate } from "../../i18n/i18n";
import { resolutionWords } from "../message/words";
import { FLAGS } from "../labels";
import { EXCEPTION_STATUS_TONE, QUEUE_TONE, STATE_TONE } from "../tones";
import { Candidates } from "./Candidates";
import { Evidence } from "./Evidence";
import { Resolution } from "./Resolution";
import { ExceptionSummaryWords } from "../../components/ExceptionSummaryWords";
import { ResolveForm } from "./ResolveForm";
import { ShownNumber } from "../message/removed";

/** Changes that can alter what exception `id` shows: itself, receipts, and the message it concerns. */
export function concernsException(event: ChangeEvent, id: number, shown: ExceptionDetail | null): boolean {
  switch (event.entity) {
    case "exception":
      return event.id === id;
    case "receipt":
    case "logical_event":
      return true;
    case "message":
    case "queue":
    case "projection":
      return shown?.message?.id === event.id;
    default:
      return false;
  }
}

/** A closed exception's lead line: what was decided, in words, where an open one says what to decide. */
export function decidedWords(e: ExceptionSummary, t: Translate): string {
  return e.resolution === null ? t("exception.decided.none") : t("exception.decided", { what: resolutionWords(e.resolution, t) });
}

/**
 * One exception: what it means (once closed, what was decided), its evidence side by side and,
 * right after it, the decision: the form while it is open, what was decided once it is closed.
 * Then the message it concerns (when there is one; none is guessed), and any candidates.
 */
export function ExceptionView({
  backend,
  id,
  onClose,
  onOpenMessage,
  onOpenException,
}: {
  backend: Backend;
  id: number;
  onClose: () => void;
  onOpenMessage: (id: number) => void;
  /** Another exception (a candidate receipt's). */
  onOpenException?: ((id: number) => void) | undefined;
}) {
  const { t, formatDateTime, formatAge } = useI18n();
  const { may } = useAccess();
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const resolvedRef = useRef<HTMLDivElement>(null);
  const shown = useRef<ExceptionDetail | null>(null);
  const [resolvedHere, setResolvedHere] = useState(false);
  const [stale, setStale] = useState<BackendError | null>(null);

  const load = useCallback((b: Backend) => b.exception(id), [id]);
  const live = useCallback((event: ChangeEvent) => concernsException(event, id, shown.current), [id]);
  const { state, reload } = useBackendData(backend, load, { live, coalesceMs: 250 });
  shown.current = state.status === "ready" ? state.data : null;

  useEscape(onClose);
  useEffect(() => headingRef.current?.focus(), [id]);
  const closedNow = state.status === "ready" && state.data.exception.status !== "open" && resolvedHere;
  useEffect(() => {
    if (closedNow) resolvedRef.current?.focus();
  }, [closedNow]);

  const resolved = (): void => {
    setResolvedHere(true);
    reload();
  };
  const settledElsewhere = (error: BackendError): void => {
    setStale(error);
    reload();
  };

  return (
    <section
      className="panel detail"
      aria-labelledby={headingId}
      aria-busy={state.status === "loading"}
      data-testid="exception-detail"
      data-id={id}
    >
      <DetailBar backLabel={t("exceptions.back")} onClose={onClose} />
      <h2 id={headingId} ref={headingRef} tabIndex={-1}>
        {state.status === "ready"
          ? t("exception.title", { id: String(id), kind: t(`exceptionKind.${state.data.exception.kind}`) })
          : t("exception.titleShort", { id: String(id) })}
      </h2>
      {state.status === "loading" && (
        <p className="status" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("exception.loading")}
        </p>
      )}
      {state.status === "error" && (
        <ErrorNotice title={t("exception.error")} error={state.error} onRetry={reload} testId="exception-error" />
      )}
      {state.status === "ready" && (
        <>
          <div className="exception-head">
            <p className="badges">
              <Badge tone={EXCEPTION_STATUS_TONE[state.data.exception.status]}>
                <span data-testid="exception-status">{t(`exceptionStatus.${state.data.exception.status}`)}</span>
              </Badge>
              <span className="muted">
                {t("exception.opened", {
                  at: formatDateTime(state.data.exception.created_at_ms),
                  age: formatAge(state.data.exception.created_at_ms, Date.now()),
                })}
              </span>
            </p>
            {state.data.exception.status === "open" ? (
              <p className="statement-lead" data-testid="exception-explained">
                {t(`exceptionKind.${state.data.exception.kind}.explained`)}
              </p>
            ) : (
              <p className="statement-lead" data-testid="exception-decided">
                {decidedWords(state.data.exception, t)}
              </p>
            )}
            <Facts>
              <Fact label={t("exception.summary")}>
                <span data-testid="exception-summary">
                  <ExceptionSummaryWords exception={state.data.exception} />
                </span>
              </Fact>
            </Facts>
          </div>
          <Evidence items={state.data.evidence} />
          <div ref={resolvedRef} tabIndex={-1} aria-live="polite">
            {closedNow && (
              <p className="notice notice-success" data-testid="resolve-done">
                {t("resolve.done")}
              </p>
            )}
            {stale !== null && <ErrorNotice title={t("resolve.failed")} error={stale} testId="resolve-stale" />}
          </div>
          {state.data.exception.status === "open" ? (
            may.resolve ? (
              <ResolveForm
                key={state.data.exception.id}
                backend={backend}
                detail={state.data}
                onResolved={resolved}
                onStale={settledElsewhere}
              />
            ) : (
              <p className="notice notice-info" data-testid="resolve-not-yours">
                {t("resolve.notYours")}
              </p>
            )
          ) : (
            <Resolution exception={state.data.exception} />
          )}
          <ConcernedMessage message={state.data.message} onOpenMessage={onOpenMessage} />
          {state.data.candidates.length > 0 && (
            <Candidates
              candidates={state.data.candidates}
              forReceipt={state.data.exception.kind === "uncorrelated"}
              onOpenMessage={onOpenMessage}
              onOpenException={onOpenException}
            />
          )}
          {state.data.details !== null && state.data.details !== undefined && (
            <Disclosure summary={t("exception.details")} testId="exception-details">
              <pre className="raw">{JSON.stringify(state.data.details, null, 2)}</pre>
            </Disclosure>
          )}
        </>
      )}
    </section>
  );
}

function ConcernedMessage({
  message: m,
  onOpenMessage,
}: {
  message: MessageSummary | null;
  onOpenMessage: (id: number) => void;
}) {
  const { t, formatDateTime } = useI18n();
  const headingId = useId();
  return (
    <section className="concerned" aria-labelledby={headingId} data-testid="exception-message">
      <h3 id={headingId}>{t("exception.message")}</h3>
      {m === null ? (
        <p className="muted" data-testid="exception-no-message">
          {t("exception.message.none")}
        </p>
      ) : (
        <div className="message-card" data-id={m.id}>
          <p>
            <strong>{t("exceptions.messageRef", { id: String(m.id) })}</strong>{" "}
            <ShownNumber value={m.destination} />{" "}
            <span className="muted">{formatDateTime(m.created_at_ms)}</span>
          </p>
          <p className="message-body">{m.preview}</p>
          <p className="badges">
            <Badge tone={QUEUE_TONE[m.status]}>{t(`queueStatus.${m.status}`)}</Badge>
            <Badge tone={STATE_TONE[m.state]}>
              {m.rule === "operator_decision" ? t(`decidedState.${m.state}`) : t(`reportedState.${m.state}`)}
            </Badge>
            {FLAGS.filter((f) => m.flags.includes(f)).map((f) => (
              <Badge key={f} tone="warning">
                {t(`flag.${f}`)}
              </Badge>
            ))}
          </p>
          <button
            type="button"
            className="button button-secondary"
            onClick={() => onOpenMessage(m.id)}
            data-testid="exception-open-message"
          >
            {t("exception.openMessage", { id: String(m.id) })}
          </button>
        </div>
      )}
    </section>
  );
}
