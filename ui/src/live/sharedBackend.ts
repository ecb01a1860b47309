import type { Backend } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";

interface Listener {
  readonly onChange: (event: ChangeEvent) => void;
  readonly onResync: () => void;
}

/**
 * The same backend, with every `subscribe` served by one underlying subscription. Over HTTP each
 * subscription is an event stream of its own, and a browser keeps only a few connections per
 * server: a screen showing a list, a detail and a count must not spend three of them.
 *
 * The stream closes as soon as its last listener leaves (the app's navigation keeps one while it
 * is shown, so views coming and going do not reconnect it). A listener that joins a stream
 * already live is told to resync once (it may have missed changes committed before it joined),
 * as a fresh subscription would be.
 */
export function shareSubscription(inner: Backend): Backend {
  const listeners = new Set<Listener>();
  let unsubscribe: (() => void) | null = null;
  let live = false;

  const open = (): void => {
    live = false;
    unsubscribe = inner.subscribe(
      (event) => {
        for (const l of [...listeners]) l.onChange(event);
      },
      () => {
        live = true;
        for (const l of [...listeners]) l.onResync();
      },
    );
  };

  return {
    info: () => inner.info(),
    me: () => inner.me(),
    submitMessage: (message, idempotencyKey) => inner.submitMessage(message, idempotencyKey),
    submitBatch: (batch, idempotencyKey) => inner.submitBatch(batch, idempotencyKey),
    previewMessages: (batch) => inner.previewMessages(batch),
    listMessages: (filter) => inner.listMessages(filter),
    exportMessages: (filter, options) => inner.exportMessages(filter, options),
    saveOptOuts: () => inner.saveOptOuts(),
    saveCsv: (text, name) => inner.saveCsv(text, name),
    message: (id) => inner.message(id),
    retry: (id, action) => inner.retry(id, action),
    cancel: (id, action) => inner.cancel(id, action),
    listExceptions: (filter) => inner.listExceptions(filter),
    exception: (id) => inner.exception(id),
    compareCandidates: (id, candidates) => inner.compareCandidates(id, candidates),
    resolve: (id, request) => inner.resolve(id, request),
    listThreads: (filter) => inner.listThreads(filter),
    thread: (request) => inner.thread(request),
    inboxCounts: () => inner.inboxCounts(),
    markRead: (read) => inner.markRead(read),
    listOptOuts: (filter) => inner.listOptOuts(filter),
    addOptOut: (optOut) => inner.addOptOut(optOut),
    removeOptOut: (removal) => inner.removeOptOut(removal),
    importOptOuts: (file) => inner.importOptOuts(file),
    exportOptOuts: () => inner.exportOptOuts(),
    sandboxReply: (reply) => inner.sandboxReply(reply),
    listTemplates: () => inner.listTemplates(),
    createTemplate: (template) => inner.createTemplate(template),
    deleteTemplate: (id) => inner.deleteTemplate(id),
    dashboard: () => inner.dashboard(),
    activity: (window) => inner.activity(window),
    pace: () => inner.pace(),
    connection: () => inner.connection(),
    connections: () => inner.connections(),
    commandConnection: (action) => inner.commandConnection(action),
    connectionSettings: () => inner.connectionSettings(),
    updateConnectionSettings: (update) => inner.updateConnectionSettings(update),
    auditLog: (page) => inner.auditLog(page),
    listKeys: () => inner.listKeys(),
    createKey: (key) => inner.createKey(key),
    revokeKey: (id) => inner.revokeKey(id),
    settings: () => inner.settings(),
    updateSettings: (update) => inner.updateSettings(update),
    testConnection: (test) => inner.testConnection(test),
    listAccounts: () => inner.listAccounts(),
    createAccount: (account) => inner.createAccount(account),
    updateAccount: (id, change) => inner.updateAccount(id, change),
    listSessions: () => inner.listSessions(),
    revokeSession: (id) => inner.revokeSession(id),
    subscribe(onChange, onResync) {
      const listener: Listener = { onChange, onResync };
      listeners.add(listener);
      if (unsubscribe === null) {
        open();
      } else if (live) {
        queueMicrotask(() => {
          if (listeners.has(listener)) listener.onResync();
        });
      }
      return () => {
        if (!listeners.delete(listener)) return;
        if (listeners.size === 0 && unsubscribe !== null) {
          const close = unsubscribe;
          unsubscribe = null;
          live = false;
          close();
        }
      };
    },
  };
}
