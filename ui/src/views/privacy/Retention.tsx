import { useId, useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { RetentionPeriods } from "../../bindings/RetentionPeriods";
import type { RetentionRun } from "../../bindings/RetentionRun";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import type { I18n } from "../../i18n/i18n";
import { count } from "../../i18n/privacy/redacted";
import { RedactedCounts, WalLine } from "./RedactedCounts";
import { ScrollArea } from "../../components/ScrollArea";

/** The periods, in the order the config file lists them. */
const PERIODS = [
  "otp_text_days",
  "transactional_text_days",
  "bulk_text_days",
  "destination_days",
  "replies_days",
  "audit_days",
] as const satisfies readonly (keyof RetentionPeriods)[];

/** A period in words: so many days, removed at the next run (0), or kept for ever (none). */
export function periodWords(days: number | null, { t, plural }: Pick<I18n, "t" | "plural">): string {
  if (days === null) return t("privacy.forever");
  if (days === 0) return t("privacy.days.none");
  return t(`privacy.days.${plural(days)}`, { count: days });
}

/**
 * The retention in force: how long each kind of personal content is kept, what stays (the
 * facts), and where the periods are set.
 */
export function RetentionInForce({ retention }: { retention: RetentionPeriods }) {
  const i18n = useI18n();
  const { t } = i18n;
  const headingId = useId();
  return (
    <>
      <h3 id={headingId} className="privacy-retention-heading">
        {t("privacy.retention.title")}
      </h3>
      <p className="hint">{t("privacy.retention.intro")}</p>
      <ScrollArea>
        <table className="table table-stack" aria-labelledby={headingId} data-testid="privacy-retention">
          <thead>
            <tr>
              <th scope="col">{t("privacy.retention.col.what")}</th>
              <th scope="col">{t("privacy.retention.col.kept")}</th>
            </tr>
          </thead>
          <tbody>
            {PERIODS.map((period) => (
              <tr key={period} data-testid="privacy-period" data-period={period} data-days={retention[period] ?? "never"}>
                <th scope="row" className="privacy-period-name">
                  {t(`privacy.retention.${period}`)}
                </th>
                <td data-label={t("privacy.retention.col.kept")}>{periodWords(retention[period], i18n)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollArea>
      <p className="hint" data-testid="privacy-config">
        {t("privacy.retention.config", { section: "[retention]", file: "smsdesk.toml", doc: "docs/admin/personal-data.md" })}
      </p>
    </>
  );
}

type RunStage =
  | { readonly kind: "idle" }
  | { readonly kind: "running" }
  | { readonly kind: "done"; readonly run: RetentionRun }
  | { readonly kind: "failed"; readonly error: BackendError };

/** "Run retention now": what is past its period goes now rather than at the daily run; then what it did. */
export function RunRetention({ backend, onRan }: { backend: Backend; onRan: () => void }) {
  const { t } = useI18n();
  const hintId = useId();
  const [stage, setStage] = useState<RunStage>({ kind: "idle" });

  const run = (): void => {
    setStage({ kind: "running" });
    backend.runRetention().then(
      (done) => {
        setStage({ kind: "done", run: done });
        onRan();
      },
      (e: unknown) => setStage({ kind: "failed", error: asBackendError(e) }),
    );
  };

  return (
    <div className="privacy-run">
      <div className="row-actions">
        <button
          type="button"
          className="button"
          onClick={run}
          disabled={stage.kind === "running"}
          aria-describedby={hintId}
          data-testid="privacy-run"
        >
          {stage.kind === "running" ? t("privacy.run.busy") : t("privacy.run")}
        </button>
        <span className="hint" id={hintId}>
          {t("privacy.run.hint")}
        </span>
      </div>
      <div aria-live="polite">
        {stage.kind === "done" && <RunResult run={stage.run} />}
        {stage.kind === "failed" && <ErrorNotice title={t("privacy.run.failed")} error={stage.error} testId="privacy-run-error" />}
      </div>
    </div>
  );
}

/** What a run did: what it removed, in how many batches, how long it held the database at most. */
function RunResult({ run }: { run: RetentionRun }) {
  const { t, formatDateTime } = useI18n();
  return (
    <div className="notice notice-success" data-testid="privacy-run-result" data-batches={run.batches}>
      <p>{t("privacy.run.done", { at: formatDateTime(run.started_at_ms), took: run.took_ms })}</p>
      <RedactedCounts redacted={run.redacted} testId="privacy-run-redacted" />
      <p data-testid="privacy-run-batches">
        {t("privacy.run.batches", { batches: run.batches, longest: count(run.longest_batch_ms) })}
      </p>
      <WalLine emptied={run.wal_emptied} />
    </div>
  );
}
