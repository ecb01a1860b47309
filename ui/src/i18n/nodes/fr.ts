import type { nodesEn } from "./en";

export const nodesFr: { readonly [K in keyof typeof nodesEn]: string } = {
  "nodes.title": "Nœuds",
  "nodes.table": "Les nœuds qui partagent la base",
  "nodes.col.node": "Nœud",
  "nodes.col.state": "État",
  "nodes.col.host": "Ordinateur",
  "nodes.col.heartbeat": "Dernier battement",
  "nodes.col.runs": "Connexions",
  "nodes.state.alive": "En marche",
  "nodes.state.stopped": "Arrêté",
  "nodes.state.silent": "Muet (mort pour les autres)",
  "nodes.run": "{connection} : {bound}/{binds} liées, {tps}/s permis, {accepted}/s acceptés",
  "nodes.run.elsewhere": "{connection} : tenue par un autre nœud",
  "nodes.runs.none": "Rien",
};
