import { useId, useState } from "react";
import { useAccess } from "../../access/context";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { AlertChannel } from "../../bindings/AlertChannel";
import type { AlertsOverview } from "../../bindings/AlertsOverview";
import type { ChannelState } from "../../bindings/ChannelState";
import type { TestAlertResult } from "../../bindings/TestAlertResult";
import { Badge } from "../../components/Badge";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { OtherNotices } from "./OtherNotices";

const CHANNELS: readonly AlertChannel[] = ["email", "webhook"];

/** E-mail and webhooks: whether each is ready and to whom, its quiet hours, a test for admins; then the latest tests and summaries. */
export function AlertChannels({ overview, backend, onTested }: { overview: AlertsOverview; backend: Backend; onTested: () => void }) {
  const { t } = useI18n();
  const headingId = useId();
  return (
    <section className="panel" aria-labelledby={headingId} data-testid="alerts-channels">
      <h2 id={headingId}>{t("alerts.channels.title")}</h2>
      <p className="panel-intro">{t("alerts.channels.intro")}</p>
      <div className="alert-channels">
        {CHANNELS.map((channel) => (
          <ChannelCard key={channel} channel={channel} state={overview[channel]} backend={backend} onTested={onTested} />
        ))}
      </div>
      <OtherNotices notices={overview.otherNotices} />
    </section>
  );
}

function ChannelCard({
  channel,
  state,
  backend,
  onTested,
}: {
  channel: AlertChannel;
  state: ChannelState;
  backend: Backend;
  onTested: () => void;
}) {
  const { t } = useI18n();
  const { may } = useAccess();
  return (
    <div className="dashboard-card alert-channel" data-testid={`alert-channel-${channel}`} data-ready={state.ready}>
      <h3>
        {t(`alerts.channel.${channel}`)}{" "}
        <Badge tone={state.ready ? "success" : "neutral"}>{state.ready ? t("alerts.channel.ready") : t("alerts.channel.notReady")}</Badge>
      </h3>
      <p data-testid="alert-channel-detail">
        {state.ready ? (
          t("alerts.channel.goesTo", { detail: state.detail })
        ) : state.missing !== null ? (
          t(`alerts.channel.missing.${state.missing}`)
        ) : (
          <>
            {t("alerts.channel.missing")} <span lang="en">{state.detail}</span>
          </>
        )}
      </p>
      <p className="muted" data-testid="alert-channel-quiet">
        {state.quietHours === "" ? t("alerts.channel.noQuiet") : t("alerts.channel.quiet", { hours: state.quietHours })}
      </p>
      {may.admin && <TestAlertButton channel={channel} backend={backend} onTested={onTested} />}
    </div>
  );
}

type Test =
  | { readonly kind: "idle" }
  | { readonly kind: "busy" }
  | { readonly kind: "done"; readonly result: TestAlertResult }
  | { readonly kind: "failed"; readonly error: BackendError };

/** Sends a test alert on the channel now, and says whether it went and to whom (or why not). */
function TestAlertButton({ channel, backend, onTested }: { channel: AlertChannel; backend: Backend; onTested: () => void }) {
  const { t } = useI18n();
  const [test, setTest] = useState<Test>({ kind: "idle" });
  const send = (): void => {
    setTest({ kind: "busy" });
    backend.testAlert({ channel }).then(
      (result) => {
        setTest({ kind: "done", result });
        onTested();
      },
      (e: unknown) => setTest({ kind: "failed", error: asBackendError(e) }),
    );
  };
  return (
    <>
      <div className="row-actions">
        <button
          type="button"
          className="button button-secondary"
          onClick={send}
          disabled={test.kind === "busy"}
          data-testid={`alert-test-${channel}`}
        >
          {test.kind === "busy" ? t("alerts.test.busy") : t("alerts.test.go")}
        </button>
      </div>
      <div aria-live="polite">
        {test.kind === "done" && <TestResult result={test.result} />}
        {test.kind === "failed" && <ErrorNotice title={t("alerts.test.failed")} error={test.error} testId="alert-test-error" />}
      </div>
    </>
  );
}

function TestResult({ result }: { result: TestAlertResult }) {
  const { t } = useI18n();
  return result.sent ? (
    <p className="notice notice-success" data-testid="alert-test-result" data-sent="true">
      {t("alerts.test.sent", { detail: result.detail })}
    </p>
  ) : (
    <p className="notice notice-warning" data-testid="alert-test-result" data-sent="false">
      {t("alerts.test.notSent")} <span lang="en">{result.detail}</span>
    </p>
  );
}
