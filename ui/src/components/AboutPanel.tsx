import { useCallback, useId, useRef, type ReactNode } from "react";
import { CLIENT_ERROR_CODES, type Backend, type BackendError } from "../backend";
import type { AppInfo } from "../bindings/AppInfo";
import { useI18n } from "../i18n/context";
import type { MessageKey } from "../i18n/i18n";
import { useAppInfo } from "../useAppInfo";

export function AboutPanel({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, retry } = useAppInfo(backend);
  const headingRef = useRef<HTMLHeadingElement>(null);

  // The Retry button disappears while loading: keep keyboard focus in the panel instead of losing it to the page.
  const retryFromButton = useCallback(() => {
    headingRef.current?.focus();
    retry();
  }, [retry]);

  return (
    <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
      <h2 id={headingId} ref={headingRef} tabIndex={-1}>
        {t("about.title")}
      </h2>
      <p className="panel-intro">{t("about.intro")}</p>
      {state.status === "loading" && (
        <p className="status" role="status" data-testid="about-loading">
          <span className="spinner" aria-hidden="true" />
          {t("state.loading")}
        </p>
      )}
      {state.status === "error" && <ErrorNotice error={state.error} onRetry={retryFromButton} />}
      {state.status === "ready" && <InfoList info={state.info} />}
    </section>
  );
}

function InfoList({ info }: { info: AppInfo }) {
  const { t, formatNumber, formatDateTime } = useI18n();
  return (
    <dl className="info-list" data-testid="about-info">
      <Row label={t("about.version")}>
        <span data-testid="info-version">{info.version}</span>
      </Row>
      <Row label={t("about.mode")}>
        <span data-testid="info-mode" data-mode={info.mode}>
          {t(`mode.${info.mode}`)}
        </span>
      </Row>
      <Row label={t("about.dataDir")}>
        <code className="path" data-testid="info-data-dir">{info.dataDir}</code>
      </Row>
      <Row label={t("about.databasePath")}>
        <code className="path" data-testid="info-database-path">{info.databasePath}</code>
      </Row>
      <Row label={t("about.configPath")}>
        <code className="path" data-testid="info-config-path">{info.configPath}</code>
      </Row>
      <Row label={t("about.schemaVersion")}>
        <span data-testid="info-schema-version" data-value={info.schemaVersion}>
          {formatNumber(info.schemaVersion)}
        </span>
      </Row>
      <Row label={t("about.httpUrl")}>
        {info.httpUrl === null ? (
          <span className="muted" data-testid="info-http-url">{t("about.httpUrl.none")}</span>
        ) : (
          <a
            href={info.httpUrl}
            target="_blank"
            rel="noreferrer"
            title={t("about.httpUrl.open", { url: info.httpUrl })}
            data-testid="info-http-url"
          >
            {info.httpUrl}
          </a>
        )}
      </Row>
      <Row label={t("about.startedAt")}>
        <time
          dateTime={new Date(info.startedAtMs).toISOString()}
          data-testid="info-started-at"
        >
          {formatDateTime(info.startedAtMs)}
        </time>
      </Row>
    </dl>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="info-row">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Codes the UI explains in its own words; any other code gets the generic sentence. */
type ExplanationKey = Extract<MessageKey, "error.unreachable" | "error.badResponse" | "error.generic">;

const EXPLAINED_CODES: Readonly<Record<string, ExplanationKey>> = {
  [CLIENT_ERROR_CODES.unreachable]: "error.unreachable",
  [CLIENT_ERROR_CODES.badResponse]: "error.badResponse",
};

function ErrorNotice({ error, onRetry }: { error: BackendError; onRetry: () => void }) {
  const { t } = useI18n();
  const explanation: ExplanationKey = EXPLAINED_CODES[error.code] ?? "error.generic";
  return (
    <div className="notice notice-error" role="alert" data-testid="about-error">
      <h3>{t("error.title")}</h3>
      <p>{t(explanation)}</p>
      <dl className="error-facts">
        <div>
          <dt>{t("error.code")}</dt>
          <dd>
            <code data-testid="error-code">{error.code}</code>
          </dd>
        </div>
        <div>
          <dt>{t("error.details")}</dt>
          <dd data-testid="error-message">{error.message}</dd>
        </div>
      </dl>
      <button type="button" className="button" onClick={onRetry} data-testid="retry">
        {t("action.retry")}
      </button>
    </div>
  );
}
