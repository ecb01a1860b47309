import { useId } from "react";
import type { Backend } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { GuardrailCount } from "../bindings/GuardrailCount";
import type { GuardrailSettingsView } from "../bindings/GuardrailSettingsView";
import type { GuardrailsOverview } from "../bindings/GuardrailsOverview";
import type { SpendNow } from "../bindings/SpendNow";
import { ErrorNotice } from "../components/ErrorNotice";
import { Fact, Facts } from "../components/Facts";
import { useBackendData } from "../hooks/useBackendData";
import { formatRoute } from "../hooks/useHashRoute";
import { useI18n } from "../i18n/context";
import { formatAmount } from "./guardrails/money";
import { SpendNowList } from "./guardrails/SpendNow";
import { SpendReportPanel } from "./guardrails/SpendReportPanel";
import { countLines, countryWords, GUARDRAIL_REASONS, senderWords, type CountLine } from "./guardrails/words";
import { ScrollArea } from "../components/ScrollArea";

export const loadGuardrails = (backend: Backend): Promise<GuardrailsOverview> => backend.guardrails();
/** A refusal is audited, a hold opens an exception, a message sent moves the spend. */
export const guardrailChange = (event: ChangeEvent): boolean =>
  event.entity === "audit" || event.entity === "exception" || event.entity === "message";

/**
 * The guardrails against SMS pumping and waste, for everyone who reads everything: what they
 * refused and held over the last day (by country, and by API key or sender), the one-time codes
 * held now (with the way to the queue that releases or cancels them), today's and this month's
 * spend against the limits, the settings in force, and the spend report for a chosen period.
 */
export function Guardrails({ backend, now }: { backend: Backend; now?: () => Date }) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, reload } = useBackendData(backend, loadGuardrails, { live: guardrailChange, coalesceMs: 1_000 });

  return (
    <div className="stack" data-testid="guardrails">
      <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
        <h2 id={headingId}>{t("guardrails.title")}</h2>
        <p className="panel-intro">{t("guardrails.intro")}</p>
        {state.status === "loading" && (
          <p className="status" role="status" data-testid="guardrails-loading">
            <span className="spinner" aria-hidden="true" />
            {t("guardrails.loading")}
          </p>
        )}
        {state.status === "error" && (
          <ErrorNotice title={t("guardrails.error")} error={state.error} onRetry={reload} testId="guardrails-error" />
        )}
        {state.status === "ready" && (
          <div className="dashboard-grid">
            <SpendCard spend={state.data.spend} priced={state.data.settings.priced_connections} />
            <HeldCard held={state.data.held} settings={state.data.settings} />
          </div>
        )}
      </section>
      {state.status === "ready" && (
        <>
          <Counts counts={state.data.counts} sinceMs={state.data.since_ms} />
          <SettingsInForce settings={state.data.settings} spend={state.data.spend} />
        </>
      )}
      <SpendReportPanel backend={backend} {...(now === undefined ? {} : { now })} />
    </div>
  );
}

function SpendCard({ spend, priced }: { spend: SpendNow; priced: readonly string[] }) {
  const { t } = useI18n();
  const headingId = useId();
  return (
    <section className="dashboard-card" aria-labelledby={headingId} data-testid="guardrails-spend">
      <h3 id={headingId}>{t("guardrails.spend.title")}</h3>
      <SpendNowList spend={spend} />
      {priced.length === 0 ? (
        <p className="muted" data-testid="guardrails-unpriced">
          {t("guardrails.spend.unpriced")}
        </p>
      ) : (
        <p className="muted" data-testid="guardrails-priced">
          {t("guardrails.spend.estimated")} {t("guardrails.spend.priced", { connections: priced.join(", ") })}
        </p>
      )}
    </section>
  );
}

function HeldCard({ held, settings }: { held: number; settings: GuardrailSettingsView }) {
  const { t } = useI18n();
  const headingId = useId();
  return (
    <section className="dashboard-card" aria-labelledby={headingId} data-testid="guardrails-held" data-held={held}>
      <h3 id={headingId}>{t("guardrails.held.title")}</h3>
      {held === 0 ? (
        <p className="muted" data-testid="guardrails-held-none">
          {t("guardrails.held.none")}
        </p>
      ) : (
        <p className="count" data-testid="guardrails-held-count">
          {t("guardrails.held.count", { count: held })}
        </p>
      )}
      <p className="muted">{t("guardrails.held.explained")}</p>
      {(held > 0 || settings.anomaly_factor > 0) && (
        <p className="dashboard-more">
          <a href={formatRoute({ section: "exceptions", id: null, kind: "unusual_volume" })} data-testid="guardrails-held-open">
            {t("guardrails.held.open")}
          </a>
        </p>
      )}
    </section>
  );
}

/** What was refused and held over the last day: by country, then by API key or sender. */
function Counts({ counts, sinceMs }: { counts: readonly GuardrailCount[]; sinceMs: number }) {
  const { t, formatDateTime, formatTag } = useI18n();
  const headingId = useId();
  // A key is told apart by its id, and named by its label (its name when it still exists).
  const labels = new Map(counts.map((c) => [c.sender, c.label]));
  return (
    <section className="panel guardrails-counts" aria-labelledby={headingId} data-testid="guardrails-counts">
      <h2 id={headingId}>{t("guardrails.counts.title")}</h2>
      <p className="panel-intro">{t("guardrails.counts.since", { since: formatDateTime(sinceMs) })}</p>
      {counts.length === 0 ? (
        <p className="muted" data-testid="guardrails-counts-none">
          {t("guardrails.counts.none")}
        </p>
      ) : (
        <>
          <CountTable
            title={t("guardrails.counts.byCountry")}
            first={t("guardrails.col.country")}
            lines={countLines(counts, (c) => c.country)}
            name={(country) => countryWords(country, formatTag, t)}
            testId="guardrails-by-country"
          />
          <CountTable
            title={t("guardrails.counts.bySender")}
            first={t("guardrails.col.sender")}
            lines={countLines(counts, (c) => c.sender)}
            name={(sender) => senderWords(sender, labels.get(sender) ?? sender, t)}
            testId="guardrails-by-sender"
          />
        </>
      )}
    </section>
  );
}

function CountTable({
  title,
  first,
  lines,
  name,
  testId,
}: {
  title: string;
  first: string;
  lines: readonly CountLine[];
  name: (key: string) => string;
  testId: string;
}) {
  const { t, formatNumber } = useI18n();
  const headingId = useId();
  return (
    <>
      <h3 id={headingId}>{title}</h3>
      <ScrollArea>
        <table className="table table-stack" aria-labelledby={headingId} data-testid={testId}>
          <thead>
            <tr>
              <th scope="col">{first}</th>
              {GUARDRAIL_REASONS.map((r) => (
                <th key={r} scope="col" className="num">
                  {t(`guardrails.reason.${r}`)}
                </th>
              ))}
              <th scope="col" className="num">
                {t("guardrails.col.total")}
              </th>
            </tr>
          </thead>
          <tbody>
            {lines.map((l) => (
              <tr key={l.key} data-testid="guardrails-count" data-key={l.key} data-total={l.total}>
                <th scope="row">{name(l.key)}</th>
                {GUARDRAIL_REASONS.map((r) => (
                  <td
                    key={r}
                    className={l.counts[r] === 0 ? "num muted" : "num"}
                    data-label={t(`guardrails.reason.${r}`)}
                    data-reason={r}
                    data-count={l.counts[r]}
                  >
                    {formatNumber(l.counts[r])}
                  </td>
                ))}
                <td className="num count" data-label={t("guardrails.col.total")}>
                  {formatNumber(l.total)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollArea>
    </>
  );
}

/** The settings in force, as the engine applies them: "any" for a list not set, "none" for a limit of 0. */
function SettingsInForce({ settings: s, spend }: { settings: GuardrailSettingsView; spend: SpendNow }) {
  const { t, formatNumber, formatTag } = useI18n();
  const headingId = useId();
  const countries = (list: readonly string[] | null): string =>
    list === null ? t("guardrails.settings.any") : list.length === 0 ? t("guardrails.settings.none") : list.join(", ");
  const limit = (n: number): string => (n === 0 ? t("guardrails.settings.none") : formatNumber(n));
  const money = (amount: string | null): string =>
    amount === null ? t("guardrails.settings.none") : formatAmount(amount, spend.currency, formatTag);
  return (
    <section className="panel" aria-labelledby={headingId} data-testid="guardrails-settings">
      <h2 id={headingId}>{t("guardrails.settings.title")}</h2>
      <p className="panel-intro">{t("guardrails.settings.intro")}</p>
      <Facts>
        <Fact label={t("guardrails.settings.countries")} testId="guardrails-setting-countries">
          {countries(s.countries)}
        </Fact>
        <Fact label={t("guardrails.settings.otpCountries")} testId="guardrails-setting-otp-countries">
          {countries(s.otp_countries)}
        </Fact>
        <Fact label={t("guardrails.settings.otpPerNumber")} testId="guardrails-setting-per-number">
          {s.otp_per_number === 0
            ? t("guardrails.settings.none")
            : t("guardrails.settings.otpPerNumber.value", { max: s.otp_per_number, minutes: s.otp_window_minutes })}
        </Fact>
        <Fact label={t("guardrails.settings.otpPerPrefix")} testId="guardrails-setting-per-prefix">
          {limit(s.otp_per_prefix_hour)}
        </Fact>
        <Fact label={t("guardrails.settings.otpPerKey")} testId="guardrails-setting-per-key">
          {limit(s.otp_per_key_hour)}
        </Fact>
        <Fact label={t("guardrails.settings.anomaly")} testId="guardrails-setting-anomaly">
          {s.anomaly_factor === 0
            ? t("guardrails.settings.off")
            : t("guardrails.settings.anomaly.value", { factor: s.anomaly_factor, minimum: s.anomaly_minimum })}
        </Fact>
        <Fact label={t("guardrails.settings.dayLimit")} testId="guardrails-setting-day-limit">
          {money(spend.day_limit)}
        </Fact>
        <Fact label={t("guardrails.settings.monthLimit")} testId="guardrails-setting-month-limit">
          {money(spend.month_limit)}
        </Fact>
        <Fact label={t("guardrails.settings.otpExempt")} testId="guardrails-setting-otp-exempt">
          {s.otp_exempt ? t("guardrails.settings.otpExempt.yes") : t("guardrails.settings.otpExempt.no")}
        </Fact>
      </Facts>
    </section>
  );
}
