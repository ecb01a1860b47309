/** One route of the editor: its conditions, and the connections it uses in order. */
import { useId } from "react";
import { useI18n } from "../../../i18n/context";
import { KINDS, type Problem, type RouteDraft } from "./drafts";
import { Problems, RowActions, TextField } from "./fields";

const ROUTE_FIELDS = ["name", "prefixes", "countries", "api_keys", "connections"];

export function RouteRow({
  draft,
  index,
  count,
  names,
  shadows,
  onChange,
  onMove,
  onRemove,
  problemsAt,
  otherRefusals,
}: {
  draft: RouteDraft;
  index: number;
  count: number;
  /** The connections' names as they are now, in their order. */
  names: readonly string[];
  /** It takes every message that reaches it, and routes follow it. */
  shadows: boolean;
  onChange: (patch: Partial<RouteDraft>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  problemsAt: (field: string) => Problem[];
  otherRefusals: (shown: readonly string[]) => Problem[];
}) {
  const { t } = useI18n();
  const id = useId();
  const name = draft.name.trim();
  const list = (field: "prefixes" | "countries" | "api_keys", label: string, hint: string, testId: string) => (
    <TextField
      id={`${id}-${field}`}
      label={label}
      value={draft[field]}
      onChange={(value) => onChange({ [field]: value } as Partial<RouteDraft>)}
      testId={testId}
      problems={problemsAt(field)}
      field={field}
      hint={hint}
    />
  );
  const entryFields = draft.connections.map((_, j) => `connections.${j}`);
  return (
    <fieldset className="route-edit" data-testid="route-edit" data-name={draft.name}>
      <legend>
        {name === ""
          ? t("settings.routes.legend.new", { number: index + 1 })
          : t("settings.routes.legend", { number: index + 1, name })}
      </legend>
      <Problems problems={otherRefusals([...ROUTE_FIELDS, ...entryFields])} id={`${id}-other`} />
      <div className="form settings-fields">
        <TextField
          id={`${id}-name`}
          label={t("settings.routes.name")}
          value={draft.name}
          onChange={(value) => onChange({ name: value })}
          testId="route-name"
          problems={problemsAt("name")}
          field="name"
        />
        {list("prefixes", t("settings.routes.prefixes"), t("settings.routes.prefixes.hint"), "route-prefixes")}
        {list("countries", t("settings.routes.countries"), t("settings.routes.countries.hint"), "route-countries")}
        {list("api_keys", t("settings.routes.apiKeys"), t("settings.routes.apiKeys.hint"), "route-api-keys")}
      </div>
      <fieldset className="route-kinds" aria-describedby={`${id}-kinds-hint`}>
        <legend>{t("settings.routes.kinds")}</legend>
        {KINDS.map((kind) => (
          <label key={kind} className="setting-check" htmlFor={`${id}-kind-${kind}`}>
            <input
              id={`${id}-kind-${kind}`}
              type="checkbox"
              checked={draft.kinds.includes(kind)}
              onChange={(e) =>
                onChange({
                  kinds: e.target.checked ? KINDS.filter((k) => k === kind || draft.kinds.includes(k)) : draft.kinds.filter((k) => k !== kind),
                })
              }
              data-testid={`route-kind-${kind}`}
            />
            <span>{t(`settings.kind.${kind}`)}</span>
          </label>
        ))}
        <p className="hint route-kinds-hint" id={`${id}-kinds-hint`}>
          {t("settings.routes.kinds.hint")}
        </p>
      </fieldset>
      <RouteConnections
        draft={draft}
        names={names}
        onChange={(connections) => onChange({ connections })}
        problemsAt={problemsAt}
      />
      {shadows && (
        <p className="connections-warning" data-testid="route-shadows">
          {t("settings.routes.shadows")}
        </p>
      )}
      <RowActions
        prefix="route"
        index={index}
        count={count}
        onMove={onMove}
        onRemove={onRemove}
        canRemove={true}
      />
    </fieldset>
  );
}

/** A route's connections, in order: the primary, then the failovers, each chosen among the list. */
function RouteConnections({
  draft,
  names,
  onChange,
  problemsAt,
}: {
  draft: RouteDraft;
  names: readonly string[];
  onChange: (connections: string[]) => void;
  problemsAt: (field: string) => Problem[];
}) {
  const { t } = useI18n();
  const id = useId();
  const chosen = draft.connections;
  const unused = names.filter((n) => !chosen.includes(n));
  const set = (j: number, name: string): void => onChange(chosen.map((c, k) => (k === j ? name : c)));
  const swap = (j: number, by: -1 | 1): void => {
    const k = j + by;
    if (k < 0 || k >= chosen.length) return;
    const out = [...chosen];
    out[j] = chosen[k] as string;
    out[k] = chosen[j] as string;
    onChange(out);
  };
  const listProblems = problemsAt("connections");
  return (
    <div
      className="field field-wide route-connections"
      role="group"
      aria-labelledby={`${id}-label`}
      aria-describedby={[`${id}-hint`, listProblems.length > 0 ? `${id}-problems` : null].filter((x) => x !== null).join(" ")}
      data-testid="route-connections"
    >
      <span className="route-connections-label" id={`${id}-label`}>
        {t("settings.routes.connections")}
      </span>
      <p className="hint" id={`${id}-hint`}>
        {t("settings.routes.connections.hint")}
      </p>
      {chosen.length > 0 && (
        <ol className="route-connection-list">
          {chosen.map((name, j) => {
            const problems = problemsAt(`connections.${j}`);
            const selectId = `${id}-${j}`;
            return (
              <li key={j} className="route-connection" data-testid="route-connection" data-name={name}>
                <label htmlFor={selectId}>
                  {j === 0 ? t("settings.routes.primary") : t("settings.routes.failover", { number: j })}
                </label>
                <select
                  id={selectId}
                  value={name}
                  onChange={(e) => set(j, e.target.value)}
                  aria-invalid={problems.length > 0 ? "true" : undefined}
                  aria-describedby={problems.length > 0 ? `${selectId}-problems` : undefined}
                  data-testid="route-connection-select"
                >
                  {!names.includes(name) && <option value={name}>{t("settings.routes.missing", { name })}</option>}
                  {names.map((n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ))}
                </select>
                <button
                  type="button"
                  className="button button-secondary button-small"
                  onClick={() => swap(j, -1)}
                  disabled={j === 0}
                  data-testid="route-connection-up"
                >
                  {t("settings.connections.up")}
                </button>
                <button
                  type="button"
                  className="button button-secondary button-small"
                  onClick={() => swap(j, 1)}
                  disabled={j === chosen.length - 1}
                  data-testid="route-connection-down"
                >
                  {t("settings.connections.down")}
                </button>
                <button
                  type="button"
                  className="button button-secondary button-small"
                  onClick={() => onChange(chosen.filter((_, k) => k !== j))}
                  data-testid="route-connection-remove"
                >
                  {t("settings.routes.connection.remove")}
                </button>
                <Problems problems={problems} id={`${selectId}-problems`} field={`connections.${j}`} />
              </li>
            );
          })}
        </ol>
      )}
      <Problems problems={listProblems} id={`${id}-problems`} field="connections" />
      <div className="row-actions">
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={() => {
            const next = unused[0];
            if (next !== undefined) onChange([...chosen, next]);
          }}
          disabled={unused.length === 0}
          data-testid="route-connection-add"
        >
          {t("settings.routes.connection.add")}
        </button>
      </div>
    </div>
  );
}
