import { BackendError, CLIENT_ERROR_CODES, type Backend } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";

/**
 * A Backend whose every operation rejects until a test gives it an answer, and whose live
 * updates the test drives with `emit` and `resync`.
 */
export class FakeBackend implements Backend {
  readonly #listeners = new Set<{ onChange: (e: ChangeEvent) => void; onResync: () => void }>();
  readonly calls: string[] = [];

  get subscribers(): number {
    return this.#listeners.size;
  }

  emit(event: ChangeEvent): void {
    for (const l of [...this.#listeners]) l.onChange(event);
  }

  resync(): void {
    for (const l of [...this.#listeners]) l.onResync();
  }

  subscribe(onChange: (e: ChangeEvent) => void, onResync: () => void): () => void {
    const listener = { onChange, onResync };
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #unset = (name: string) => (): Promise<never> => {
    this.calls.push(name);
    return Promise.reject(new BackendError(CLIENT_ERROR_CODES.badResponse, `${name} has no answer in this test`));
  };

  info: Backend["info"] = this.#unset("info");
  me: Backend["me"] = this.#unset("me");
  submitMessage: Backend["submitMessage"] = this.#unset("submitMessage");
  submitBatch: Backend["submitBatch"] = this.#unset("submitBatch");
  previewMessages: Backend["previewMessages"] = this.#unset("previewMessages");
  listMessages: Backend["listMessages"] = this.#unset("listMessages");
  exportMessages: Backend["exportMessages"] = this.#unset("exportMessages");
  saveOptOuts: Backend["saveOptOuts"] = this.#unset("saveOptOuts");
  saveCsv: Backend["saveCsv"] = this.#unset("saveCsv");
  saveJson?: NonNullable<Backend["saveJson"]> = this.#unset("saveJson");
  message: Backend["message"] = this.#unset("message");
  retry: Backend["retry"] = this.#unset("retry");
  cancel: Backend["cancel"] = this.#unset("cancel");
  listExceptions: Backend["listExceptions"] = this.#unset("listExceptions");
  exception: Backend["exception"] = this.#unset("exception");
  compareCandidates: Backend["compareCandidates"] = this.#unset("compareCandidates");
  resolve: Backend["resolve"] = this.#unset("resolve");
  listThreads: Backend["listThreads"] = this.#unset("listThreads");
  thread: Backend["thread"] = this.#unset("thread");
  inboxCounts: Backend["inboxCounts"] = this.#unset("inboxCounts");
  markRead: Backend["markRead"] = this.#unset("markRead");
  listOptOuts: Backend["listOptOuts"] = this.#unset("listOptOuts");
  addOptOut: Backend["addOptOut"] = this.#unset("addOptOut");
  removeOptOut: Backend["removeOptOut"] = this.#unset("removeOptOut");
  importOptOuts: Backend["importOptOuts"] = this.#unset("importOptOuts");
  exportOptOuts: Backend["exportOptOuts"] = this.#unset("exportOptOuts");
  sandboxReply: Backend["sandboxReply"] = this.#unset("sandboxReply");
  listTemplates: Backend["listTemplates"] = this.#unset("listTemplates");
  createTemplate: Backend["createTemplate"] = this.#unset("createTemplate");
  deleteTemplate: Backend["deleteTemplate"] = this.#unset("deleteTemplate");
  dashboard: Backend["dashboard"] = this.#unset("dashboard");
  activity: Backend["activity"] = this.#unset("activity");
  pace: Backend["pace"] = this.#unset("pace");
  deliveryReport: Backend["deliveryReport"] = this.#unset("deliveryReport");
  privacyOverview: Backend["privacyOverview"] = this.#unset("privacyOverview");
  runRetention: Backend["runRetention"] = this.#unset("runRetention");
  eraseNumber: Backend["eraseNumber"] = this.#unset("eraseNumber");
  subjectAccess: Backend["subjectAccess"] = this.#unset("subjectAccess");
  guardrails: Backend["guardrails"] = this.#unset("guardrails");
  spendReport: Backend["spendReport"] = this.#unset("spendReport");
  alerts: Backend["alerts"] = this.#unset("alerts");
  acknowledgeAlert: Backend["acknowledgeAlert"] = this.#unset("acknowledgeAlert");
  testAlert: Backend["testAlert"] = this.#unset("testAlert");
  connection: Backend["connection"] = this.#unset("connection");
  connections: Backend["connections"] = this.#unset("connections");
  commandConnection: Backend["commandConnection"] = this.#unset("commandConnection");
  connectionSettings: Backend["connectionSettings"] = this.#unset("connectionSettings");
  updateConnectionSettings: Backend["updateConnectionSettings"] = this.#unset("updateConnectionSettings");
  auditLog: Backend["auditLog"] = this.#unset("auditLog");
  listKeys: Backend["listKeys"] = this.#unset("listKeys");
  createKey: Backend["createKey"] = this.#unset("createKey");
  revokeKey: Backend["revokeKey"] = this.#unset("revokeKey");
  smppServer: Backend["smppServer"] = this.#unset("smppServer");
  nodes: Backend["nodes"] = this.#unset("nodes");
  listSmppAccounts: Backend["listSmppAccounts"] = this.#unset("listSmppAccounts");
  createSmppAccount: Backend["createSmppAccount"] = this.#unset("createSmppAccount");
  resetSmppPassword: Backend["resetSmppPassword"] = this.#unset("resetSmppPassword");
  settings: Backend["settings"] = this.#unset("settings");
  updateSettings: Backend["updateSettings"] = this.#unset("updateSettings");
  testConnection: Backend["testConnection"] = this.#unset("testConnection");
  listAccounts: Backend["listAccounts"] = this.#unset("listAccounts");
  createAccount: Backend["createAccount"] = this.#unset("createAccount");
  updateAccount: Backend["updateAccount"] = this.#unset("updateAccount");
  listSessions: Backend["listSessions"] = this.#unset("listSessions");
  revokeSession: Backend["revokeSession"] = this.#unset("revokeSession");
}
