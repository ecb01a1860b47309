import { useId } from "react";
import type { Backend } from "../backend";
import type { NodeView } from "../bindings/NodeView";
import { Badge } from "../components/Badge";
import { ScrollArea } from "../components/ScrollArea";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";

/** Heartbeats and rates move with time, not with store changes: asked for this often. */
export const NODES_POLL_MS = 5_000;

const anyChange = (): boolean => true;
const loadNodes = (backend: Backend): Promise<NodeView[]> => backend.nodes();

/**
 * The nodes that share the database, on the dashboard, for those who read everything: shown once
 * more than one node has run on it (several smsdesk on one PostgreSQL database); nothing for one
 * office on one machine, nor while the nodes cannot be read.
 */
export function DashboardNodes({ backend }: { backend: Backend }) {
  const { state } = useBackendData(backend, loadNodes, {
    live: anyChange,
    coalesceMs: 1_000,
    pollMs: NODES_POLL_MS,
  });
  if (state.status !== "ready" || state.data.length < 2) return null;
  return <NodesCard nodes={state.data} />;
}

/** One row per node: its state by its heartbeat, its computer, the heartbeat's age, and what it runs. */
export function NodesCard({ nodes }: { nodes: readonly NodeView[] }) {
  const { t, formatNumber } = useI18n();
  const headingId = useId();
  const rate = (perSecond: number): string => formatNumber(Math.round(perSecond * 10) / 10);
  const tone = { alive: "success", stopped: "neutral", silent: "danger" } as const;
  return (
    <section className="dashboard-nodes" aria-labelledby={headingId} data-testid="dashboard-nodes">
      <h3 id={headingId}>{t("nodes.title")}</h3>
      <ScrollArea>
        <table className="table" aria-label={t("nodes.table")}>
          <thead>
            <tr>
              <th scope="col">{t("nodes.col.node")}</th>
              <th scope="col">{t("nodes.col.state")}</th>
              <th scope="col">{t("nodes.col.host")}</th>
              <th scope="col" className="num">
                {t("nodes.col.heartbeat")}
              </th>
              <th scope="col">{t("nodes.col.runs")}</th>
            </tr>
          </thead>
          <tbody>
            {nodes.map((n) => (
              <tr key={n.name} data-testid="dashboard-node" data-name={n.name} data-state={n.state}>
                <td>
                  <code>{n.name}</code>
                </td>
                <td>
                  <Badge tone={tone[n.state]}>{t(`nodes.state.${n.state}`)}</Badge>
                </td>
                <td>{n.host}</td>
                <td className="num">{`${formatNumber(Math.round(n.silentMs / 1000))} s`}</td>
                <td>
                  {n.runs.length === 0 ? (
                    <span className="muted">{t("nodes.runs.none")}</span>
                  ) : (
                    <ul className="plain-list">
                      {n.runs.map((r) => (
                        <li key={r.connection} data-testid="dashboard-node-run" data-connection={r.connection}>
                          {r.binds === 0
                            ? t("nodes.run.elsewhere", { connection: r.connection })
                            : t("nodes.run", {
                                connection: r.connection,
                                bound: formatNumber(r.bound),
                                binds: formatNumber(r.binds),
                                tps: rate(r.tps),
                                accepted: rate(r.acceptedPerS),
                              })}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollArea>
    </section>
  );
}
