/** Several nodes on one PostgreSQL database: the dashboard's card of the nodes. English is the reference. */
export const nodesEn = {
  "nodes.title": "Nodes",
  "nodes.table": "The nodes that share the database",
  "nodes.col.node": "Node",
  "nodes.col.state": "State",
  "nodes.col.host": "Computer",
  "nodes.col.heartbeat": "Last heartbeat",
  "nodes.col.runs": "Connections",
  "nodes.state.alive": "Running",
  "nodes.state.stopped": "Stopped",
  "nodes.state.silent": "Silent (dead to the others)",
  "nodes.run": "{connection}: {bound}/{binds} bound, {tps}/s allowed, {accepted}/s accepted",
  "nodes.run.elsewhere": "{connection}: run by another node",
  "nodes.runs.none": "Nothing",
} as const;
