/** The Settings screen's editor of the SMPP connections and their routes. */
import { useId, useState, type FormEvent } from "react";
import { asBackendError, BackendError, type Backend } from "../../backend";
import type { ConnectionsView } from "../../bindings/ConnectionsView";
import type { FieldError } from "../../bindings/FieldError";
import type { SettingsSaved } from "../../bindings/SettingsSaved";
import { ErrorNotice } from "../../components/ErrorNotice";
import { FieldProblem } from "../../components/FieldProblem";
import { useBackendData } from "../../hooks/useBackendData";
import { useI18n } from "../../i18n/context";
import { ConnectionRow } from "./connections/ConnectionRow";
import {
  answeredBy,
  blankConnection,
  blankRoute,
  connectionDraft,
  hasConditions,
  newKey,
  routeDraft,
  toUpdate,
  validate,
  type ConnectionDraft,
  type Placed,
  type Problem,
  type RouteDraft,
} from "./connections/drafts";
import { RouteRow } from "./connections/RouteRow";

export { splitList, toUpdate, trialOfDraft, type ConnectionDraft, type RouteDraft } from "./connections/drafts";

const loadConnections = (backend: Backend): Promise<ConnectionsView> => backend.connectionSettings();

/** Gives each view one number, so a reload (after a save) starts a clean form from it. */
const generations = new WeakMap<ConnectionsView, number>();
function generationOf(view: ConnectionsView): number {
  let g = generations.get(view);
  if (g === undefined) {
    g = newKey();
    generations.set(view, g);
  }
  return g;
}

/**
 * The SMPP connections and the routes that choose among them: a working copy of both lists,
 * checked as it is edited, and saved whole.
 */
export function ConnectionsEditor({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, reload } = useBackendData(backend, loadConnections);
  const [saved, setSaved] = useState<SettingsSaved | null>(null);
  const view = state.status === "ready" ? state.data : null;

  return (
    <section
      className="panel settings-section connections-editor"
      aria-labelledby={headingId}
      aria-busy={state.status === "loading"}
      data-testid="connections-editor"
    >
      <h2 id={headingId}>{t("settings.connections.title")}</h2>
      <p className="panel-intro">{t("settings.connections.intro")}</p>
      {state.status === "loading" && (
        <p className="status" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("settings.connections.loading")}
        </p>
      )}
      {state.status === "error" && (
        <ErrorNotice
          title={t("settings.connections.error")}
          error={state.error}
          onRetry={reload}
          testId="connections-error"
        />
      )}
      {view !== null && (
        <ConnectionsForm
          key={generationOf(view)}
          backend={backend}
          view={view}
          lastSave={saved}
          onEdit={() => setSaved(null)}
          onSaved={(answer) => {
            setSaved(answer);
            reload();
          }}
        />
      )}
    </section>
  );
}

function ConnectionsForm({
  backend,
  view,
  lastSave,
  onEdit,
  onSaved,
}: {
  backend: Backend;
  view: ConnectionsView;
  /** What the last save did, shown until the next edit. */
  lastSave: SettingsSaved | null;
  onEdit: () => void;
  onSaved: (saved: SettingsSaved) => void;
}) {
  const { t } = useI18n();
  const stateId = useId();
  const [initial] = useState(() => ({
    connections: view.connections.map(connectionDraft),
    routes: view.routes.map(routeDraft),
  }));
  const [connections, setConnections] = useState<ConnectionDraft[]>(initial.connections);
  const [routes, setRoutes] = useState<RouteDraft[]>(initial.routes);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<BackendError | null>(null);
  /** The engine's refusals no row's field shows (the loader's word on the whole file, say). */
  const [unplaced, setUnplaced] = useState<FieldError[]>([]);
  /** The engine's refusals, each next to the field it names (they stay with the row as it moves). */
  const [refused, setRefused] = useState<Placed[]>([]);

  const checked = validate(t, connections, routes);
  const blocked = checked.placed.length > 0 || checked.list.length > 0;
  const dirty =
    JSON.stringify(toUpdate(connections, routes)) !== JSON.stringify(toUpdate(initial.connections, initial.routes));
  // Not named yet: saving moves `[smpp]` into a named connection, worth doing as it is.
  const canSave = !saving && !blocked && (dirty || !view.named);

  const problemsAt = (scope: Placed["scope"], key: number, field: string): Problem[] =>
    [...checked.placed, ...refused]
      .filter((p) => p.scope === scope && p.key === key && p.field === field)
      .map((p) => p.problem);
  const otherRefusals = (scope: Placed["scope"], key: number, shown: readonly string[]): Problem[] =>
    refused.filter((p) => p.scope === scope && p.key === key && !shown.includes(p.field)).map((p) => p.problem);

  const forget = (scope: Placed["scope"], key: number, fields: readonly string[]): void =>
    setRefused((r) =>
      r.some((p) => p.scope === scope && p.key === key && fields.some((f) => p.field === f || p.field.startsWith(`${f}.`)))
        ? r.filter((p) => !(p.scope === scope && p.key === key && fields.some((f) => p.field === f || p.field.startsWith(`${f}.`))))
        : r,
    );

  const editConnection = (key: number, patch: Partial<ConnectionDraft>): void => {
    onEdit();
    forget("connection", key, answeredBy(Object.keys(patch)));
    setConnections((list) => list.map((c) => (c.key === key ? { ...c, ...patch } : c)));
  };
  const editRoute = (key: number, patch: Partial<RouteDraft>): void => {
    onEdit();
    forget("route", key, Object.keys(patch));
    setRoutes((list) => list.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  };
  const move = <T,>(list: readonly T[], i: number, by: -1 | 1): T[] => {
    const j = i + by;
    if (j < 0 || j >= list.length) return [...list];
    const out = [...list];
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
    return out;
  };
  const changeConnections = (change: (list: ConnectionDraft[]) => ConnectionDraft[]): void => {
    onEdit();
    setConnections(change);
  };
  const changeRoutes = (change: (list: RouteDraft[]) => RouteDraft[]): void => {
    onEdit();
    setRoutes(change);
  };

  const names = [...new Set(connections.map((c) => c.name.trim()).filter((n) => n !== ""))];
  const routed = new Set(routes.flatMap((r) => r.connections));

  const save = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (!canSave) return;
    const sentConnections = connections;
    const sentRoutes = routes;
    setSaving(true);
    setFailure(null);
    setRefused([]);
    setUnplaced([]);
    backend.updateConnectionSettings(toUpdate(sentConnections, sentRoutes)).then(
      (answer) => {
        setSaving(false);
        onSaved(answer);
      },
      (e: unknown) => {
        const error = asBackendError(e);
        const placed: Placed[] = [];
        const rest: FieldError[] = [];
        for (const fieldError of error.errors) {
          const m = /^(connections|routes)\[(\d+)\]\.?(.*)$/.exec(fieldError.field);
          const index = Number(m?.[2]);
          const row = m?.[1] === "connections" ? sentConnections[index] : m?.[1] === "routes" ? sentRoutes[index] : undefined;
          if (m === null || row === undefined) {
            rest.push(fieldError);
          } else {
            placed.push({
              scope: m[1] === "connections" ? "connection" : "route",
              key: row.key,
              field: m[3] ?? "",
              problem: { error: fieldError },
            });
          }
        }
        setSaving(false);
        setRefused(placed);
        // The refusals placed next to their fields are not repeated at the top; the others are
        // listed there with the engine's reason (for `connections`, the loader's own sentence).
        setUnplaced(rest);
        setFailure(
          new BackendError(error.code, error.message, {
            cause: error,
            retryAfterSeconds: error.retryAfterSeconds,
          }),
        );
      },
    );
  };

  const discard = (): void => {
    onEdit();
    setConnections(initial.connections);
    setRoutes(initial.routes);
    setRefused([]);
    setUnplaced([]);
    setFailure(null);
  };

  const first = connections[0];
  return (
    <form className="stack connections-form" onSubmit={save} aria-busy={saving} data-testid="connections-form" noValidate>
      {failure !== null && (
        <ErrorNotice title={t("settings.connections.saveFailed")} error={failure} testId="connections-save-error">
          {unplaced.length > 0 && (
            <ul className="field-errors" data-testid="connections-save-problems">
              {unplaced.map((e, i) => (
                <li key={i} data-field={e.field}>
                  <FieldProblem error={e} withField />
                </li>
              ))}
            </ul>
          )}
        </ErrorNotice>
      )}
      {!view.named && (
        <p className="notice notice-info" data-testid="connections-migration">
          {t("settings.connections.migration", { name: first?.saved ?? first?.name ?? "smpp" })}
        </p>
      )}

      <div className="connections-part">
        <h3>{t("settings.connections.list")}</h3>
        <div className="connection-list">
          {connections.map((c, i) => (
            <ConnectionRow
              key={c.key}
              backend={backend}
              draft={c}
              index={i}
              count={connections.length}
              unrouted={routes.length > 0 && c.enabled && c.name.trim() !== "" && !routed.has(c.name.trim())}
              onChange={(patch) => editConnection(c.key, patch)}
              onMove={(by) => changeConnections((list) => move(list, i, by))}
              onRemove={() => changeConnections((list) => list.filter((x) => x.key !== c.key))}
              problemsAt={(field) => problemsAt("connection", c.key, field)}
              otherRefusals={(shown) => otherRefusals("connection", c.key, shown)}
            />
          ))}
        </div>
        {checked.list.map((text) => (
          <p key={text} className="field-problem" role="alert" data-testid="connections-problem">
            {text}
          </p>
        ))}
        <div className="row-actions connections-add">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => changeConnections((list) => [...list, blankConnection()])}
            data-testid="connection-add"
          >
            {t("settings.connections.add")}
          </button>
        </div>
      </div>

      <div className="connections-part">
        <h3>{t("settings.routes.title")}</h3>
        <p className="hint" data-testid="routes-intro">
          {t("settings.routes.intro")}
        </p>
        {routes.length === 0 && (
          <p className="empty" data-testid="routes-empty">
            {t("settings.routes.empty")}
          </p>
        )}
        <div className="route-list">
          {routes.map((r, i) => (
            <RouteRow
              key={r.key}
              draft={r}
              index={i}
              count={routes.length}
              names={names}
              shadows={i < routes.length - 1 && !hasConditions(r)}
              onChange={(patch) => editRoute(r.key, patch)}
              onMove={(by) => changeRoutes((list) => move(list, i, by))}
              onRemove={() => changeRoutes((list) => list.filter((x) => x.key !== r.key))}
              problemsAt={(field) => problemsAt("route", r.key, field)}
              otherRefusals={(shown) => otherRefusals("route", r.key, shown)}
            />
          ))}
        </div>
        {routes.length > 0 && hasConditions(routes[routes.length - 1] as RouteDraft) && (
          <p className="connections-warning" data-testid="routes-no-fallback">
            {t("settings.routes.noFallback")}
          </p>
        )}
        <div className="row-actions connections-add">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => changeRoutes((list) => [...list, blankRoute()])}
            data-testid="route-add"
          >
            {t("settings.routes.add")}
          </button>
        </div>
      </div>

      <div className="settings-save-bar">
        <div className="row-actions">
          <button
            type="submit"
            className="button"
            disabled={!canSave}
            aria-describedby={stateId}
            data-testid="connections-save"
          >
            {saving ? t("settings.connections.saving") : t("settings.connections.save")}
          </button>
          <button
            type="button"
            className="button button-secondary"
            onClick={discard}
            disabled={saving || !dirty}
            data-testid="connections-discard"
          >
            {t("settings.connections.discard")}
          </button>
          <span className="hint" role="status" id={stateId} data-testid="connections-state">
            {blocked
              ? t("settings.connections.state.problems")
              : dirty
                ? t("settings.connections.state.changed")
                : view.named
                  ? t("settings.connections.state.unchanged")
                  : t("settings.connections.state.migrate")}
          </span>
        </div>
      </div>
      {lastSave !== null && (
        <p className="notice notice-success" role="status" data-testid="connections-saved">
          {t("settings.connections.saved")}
          {lastSave.reconnected && <> {t("settings.connections.saved.reconnected")}</>}
        </p>
      )}
    </form>
  );
}
