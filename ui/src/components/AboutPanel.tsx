import { useCallback, useId, useRef, type ReactNode } from "react";
import type { Backend } from "../backend";
import type { AppInfo } from "../bindings/AppInfo";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { ErrorNotice } from "./ErrorNotice";

const loadInfo = (backend: Backend): Promise<AppInfo> => backend.info();

export function AboutPanel({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, reload: retry } = useBackendData(backend, loadInfo);
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
      {state.status === "error" && (
        <ErrorNotice title={t("error.title")} error={state.error} onRetry={retryFromButton} testId="about-error" />
      )}
      {state.status === "ready" && <InfoList info={state.data} />}
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
      {/* Where the data lives is told to admins only. */}
      {info.dataDir !== undefined && (
        <Row label={t("about.dataDir")}>
          <code className="path" data-testid="info-data-dir">{info.dataDir}</code>
        </Row>
      )}
      {info.databasePath !== undefined && (
        <Row label={t("about.databasePath")}>
          <code className="path" data-testid="info-database-path">{info.databasePath}</code>
        </Row>
      )}
      {info.configPath !== undefined && (
        <Row label={t("about.configPath")}>
          <code className="path" data-testid="info-config-path">{info.configPath}</code>
        </Row>
      )}
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
