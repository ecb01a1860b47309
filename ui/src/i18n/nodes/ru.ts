import type { nodesEn } from "./en";

export const nodesRu: { readonly [K in keyof typeof nodesEn]: string } = {
  "nodes.title": "Узлы",
  "nodes.table": "Узлы, которые делят базу",
  "nodes.col.node": "Узел",
  "nodes.col.state": "Состояние",
  "nodes.col.host": "Компьютер",
  "nodes.col.heartbeat": "Последний сигнал",
  "nodes.col.runs": "Подключения",
  "nodes.state.alive": "Работает",
  "nodes.state.stopped": "Остановлен",
  "nodes.state.silent": "Молчит (для других — мёртв)",
  "nodes.run": "{connection}: привязано {bound}/{binds}, разрешено {tps}/с, принято {accepted}/с",
  "nodes.run.elsewhere": "{connection}: держит другой узел",
  "nodes.runs.none": "Ничего",
};
