import { afterEach, describe, expect, it, vi } from "vitest";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import type { Dashboard } from "../bindings/Dashboard";
import type { ExceptionPage } from "../bindings/ExceptionPage";
import type { ExceptionSummary } from "../bindings/ExceptionSummary";
import type { LinkState } from "../bindings/LinkState";
import type { InboxMessage } from "../bindings/InboxMessage";
import type { SettingsView } from "../bindings/SettingsView";
import type { ThreadPage } from "../bindings/ThreadPage";
import { createI18n } from "../i18n/i18n";
import { FakeBackend } from "../test/fakeBackend";
import { notesFor, tauriShell, trayStatus, watchDesktop, type DesktopNote, type Observation, type TrayStatus } from "./desktop";
import { IDLE_CONNECTION } from "../test/fixtures";

const en = createI18n(["en-US"]);
const fr = createI18n(["fr-FR"]);
const NOW = Date.UTC(2026, 10, 30, 9, 0, 0);
const BOUND: LinkState = { state: "bound", session_id: "s1", since_ms: NOW - 60_000 };
const DOWN: LinkState = { state: "down", error: "connection reset by peer", since_ms: NOW - 5_000, retry_in_ms: 4_000 };

const connection = (link: LinkState, sandbox = false): ConnectionStatus => ({
  connection: sandbox ? "sandbox" : "smpp",
  sandbox,
  link,
  binds: [{ role: "transceiver", link }],
  ...IDLE_CONNECTION,
});
/** Conflict exception `id` concerns message `id * 10`. */
const seen = (link: LinkState, conflicts: number[] = [], openExceptions = conflicts.length): Observation => ({
  connection: connection(link),
  conflicts: conflicts.map((id) => ({ exception: id, message: id * 10 })),
  openExceptions,
});

describe("the tray's status", () => {
  it("says the link in the dashboard's words and counts open exceptions", () => {
    const s = trayStatus({ connection: connection(BOUND, true), conflicts: [], openExceptions: 0 }, en);
    expect(s.summary).toMatch(/^Connected to the sandbox since /);
    expect(s.tooltip).toBe(`smsdesk: ${s.summary} · no open exceptions`);
    expect(trayStatus(seen(DOWN, [4, 3], 5), en).tooltip).toMatch(/^smsdesk: Down since .*connection reset by peer.* · open exceptions: 5$/);
  });

  it("speaks the user's language", () => {
    expect(trayStatus(seen(BOUND, [], 1234), fr).tooltip).toMatch(/exceptions ouvertes : 1\u202f234$/);
  });

  it("words the menu's actions in the user's language too", () => {
    const s = trayStatus(seen(BOUND, [], 0), fr);
    expect([s.open, s.quit]).toEqual(["Ouvrir smsdesk", "Quitter"]);
  });
});

describe("desktop notifications", () => {
  it("say nothing about what was already there when the window opened", () => {
    expect(notesFor(null, seen(DOWN, [7, 6]), en)).toEqual([]);
  });

  it("announce the link lost once, with the reason, and back again after a loss", () => {
    const lost = notesFor(seen(BOUND), seen(DOWN), en);
    expect(lost).toEqual([{ title: "Connection to the SMS provider lost", body: expect.stringContaining("connection reset by peer") }]);
    expect(notesFor(seen(DOWN), seen(DOWN), en), "still down is not news").toEqual([]);
    expect(notesFor(seen(DOWN), seen(BOUND), en)).toEqual([
      { title: "Connection to the SMS provider back", body: expect.stringMatching(/^Connected to the SMS provider since /) },
    ]);
    expect(notesFor(seen(BOUND), seen(BOUND), en)).toEqual([]);
    const refused: LinkState = { state: "bind_refused", status: 0x0e, name: "ESME_RINVPASWD", since_ms: NOW };
    expect(notesFor(seen(BOUND), seen(refused), en)[0]?.body).toContain("ESME_RINVPASWD");
    expect(notesFor(seen(BOUND), seen({ state: "stopped" }), en), "shutting down is not a loss").toEqual([]);
  });

  it("announce conflicts newer than any seen, naming the message when there is one", () => {
    expect(notesFor(seen(BOUND, [3]), seen(BOUND, [5, 3]), en)).toEqual([
      { title: "Conflicting delivery receipts", body: "Message 50 got two final receipts that disagree. Open Exceptions to decide." },
    ]);
    expect(notesFor(seen(BOUND, [3]), seen(BOUND, [9, 8, 3]), en)[0]?.body).toBe(
      "2 messages got final receipts that disagree. Open Exceptions to decide.",
    );
    expect(notesFor(seen(BOUND, [5, 3]), seen(BOUND, [3]), en), "a resolved conflict is not news").toEqual([]);
    expect(notesFor(seen(BOUND, [5]), seen(BOUND, [4]), en), "an older one reopened is not a new conflict").toEqual([]);
  });
});

function summary(id: number): ExceptionSummary {
  return { id, kind: "conflicting_final", status: "open", message_id: id * 10, summary: "two finals", created_at_ms: NOW } as ExceptionSummary;
}

/** A backend whose link and open conflicts the test changes between looks. */
function engine(): { backend: FakeBackend; set: (link: LinkState, conflicts: number[]) => void } {
  const backend = new FakeBackend();
  let now = { link: BOUND, conflicts: [] as number[] };
  backend.connection = () => Promise.resolve(connection(now.link));
  backend.listExceptions = (filter) => {
    expect(filter).toMatchObject({ status: "open", kind: "conflicting_final" });
    return Promise.resolve({ items: now.conflicts.map(summary), next_cursor: null } satisfies ExceptionPage);
  };
  backend.dashboard = () => Promise.resolve({ open_exceptions_total: now.conflicts.length } as Dashboard);
  backend.listThreads = () => Promise.resolve({ items: [], next_cursor: null });
  return { backend, set: (link, conflicts) => (now = { link, conflicts }) };
}

describe("watching the engine for the desktop", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("updates the tray when something changes, and notifies on a new conflict announced by a change event", async () => {
    vi.useFakeTimers();
    const { backend, set } = engine();
    const statuses: TrayStatus[] = [];
    const notes: DesktopNote[] = [];
    const stop = watchDesktop(
      backend,
      { setStatus: async (s) => void statuses.push(s), notify: async (n) => void notes.push(n) },
      () => en,
      3_000,
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(statuses).toHaveLength(1);
    expect(notes).toEqual([]);

    await vi.advanceTimersByTimeAsync(3_000);
    expect(statuses, "nothing changed: the tray is not set again").toHaveLength(1);

    set(BOUND, [12]);
    backend.emit({ entity: "exception", id: 12 });
    await vi.advanceTimersByTimeAsync(0);
    expect(notes.map((n) => n.body)).toEqual(["Message 120 got two final receipts that disagree. Open Exceptions to decide."]);
    expect(statuses.at(-1)?.tooltip).toMatch(/open exceptions: 1$/);

    set(DOWN, [12]);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(notes.at(-1)?.title, "the link is polled").toBe("Connection to the SMS provider lost");

    stop();
    expect(backend.subscribers).toBe(0);
    set(BOUND, [13, 12]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(notes, "nothing after stop").toHaveLength(2);
  });

  it("speaks the language in force at each look, so switching it in the window changes the tray and the notes", async () => {
    vi.useFakeTimers();
    const { backend, set } = engine();
    const statuses: TrayStatus[] = [];
    const notes: DesktopNote[] = [];
    let words = en;
    const stop = watchDesktop(
      backend,
      { setStatus: async (s) => void statuses.push(s), notify: async (n) => void notes.push(n) },
      () => words,
      3_000,
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(statuses.at(-1)?.tooltip).toContain(en.t("desktop.tray.noExceptions"));

    words = fr;
    set(DOWN, []);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(notes.map((n) => n.title)).toEqual([fr.t("desktop.note.linkLost")]);
    expect(statuses.at(-1)?.tooltip).toContain(fr.t("desktop.tray.noExceptions"));
    stop();
  });

  it("keeps watching when the engine does not answer or the shell cannot show a notification", async () => {
    vi.useFakeTimers();
    const { backend, set } = engine();
    const failing = backend.connection;
    backend.connection = () => Promise.reject(new Error("engine busy"));
    const notes: DesktopNote[] = [];
    const stop = watchDesktop(
      backend,
      {
        setStatus: () => Promise.reject(new Error("no tray")),
        notify: async (n) => {
          notes.push(n);
          throw new Error("no notification daemon");
        },
      },
      () => en,
      1_000,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    backend.connection = failing;
    await vi.advanceTimersByTimeAsync(1_000);
    set(BOUND, [2]);
    await vi.advanceTimersByTimeAsync(1_000);
    set(BOUND, [3, 2]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(notes.map((n) => n.body)).toEqual([
      "Message 20 got two final receipts that disagree. Open Exceptions to decide.",
      "Message 30 got two final receipts that disagree. Open Exceptions to decide.",
    ]);
    stop();
  });
});

describe("replies from handsets", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function reply(id: number, text: string): InboxMessage {
    return {
      id,
      connection: "sandbox",
      thread: "+33612345626",
      phone: "+33612345626",
      handset: "33612345626",
      recipient: "smsdesk",
      text,
      alphabet: "gsm7",
      parts: 1,
      parts_received: 1,
      received_at_ms: NOW,
      intent: null,
      keyword: null,
      read_at_ms: null,
      read_by: null,
    };
  }

  async function watch(notify: string): Promise<{ notes: DesktopNote[]; arrive: (r: InboxMessage) => Promise<void>; stop: () => void }> {
    vi.useFakeTimers();
    const { backend } = engine();
    let newest: InboxMessage | null = reply(1, "already there");
    backend.listThreads = (filter) => {
      expect(filter).toMatchObject({ unread: true, limit: 1 });
      const last = newest;
      return Promise.resolve({
        items: last === null ? [] : [{ thread: last.thread, phone: last.phone, last, replies: 1, unread: 1, opted_out: false }],
        next_cursor: null,
      } satisfies ThreadPage);
    };
    backend.settings = () => Promise.resolve({ fields: [{ key: "inbox.notify", value: notify }] } as SettingsView);
    const notes: DesktopNote[] = [];
    const stop = watchDesktop(backend, { setStatus: async () => {}, notify: async (n) => void notes.push(n) }, () => en, 3_000);
    await vi.advanceTimersByTimeAsync(0);
    const arrive = async (r: InboxMessage): Promise<void> => {
      newest = r;
      backend.emit({ entity: "inbox_message", id: r.id });
      await vi.advanceTimersByTimeAsync(0);
    };
    return { notes, arrive, stop };
  }

  it("announces a reply that arrives while the window is open, not those already there", async () => {
    const { notes, arrive, stop } = await watch("true");
    expect(notes, "what was unread when the window opened is not news").toEqual([]);
    await arrive(reply(2, "Je ne pourrai pas venir demain"));
    expect(notes).toEqual([{ title: "Reply from +33612345626", body: "Je ne pourrai pas venir demain" }]);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(notes, "announced once").toHaveLength(1);
    stop();
  });

  it("announces nothing when inbox.notify is off", async () => {
    const { notes, arrive, stop } = await watch("false");
    await arrive(reply(2, "STOP"));
    expect(notes).toEqual([]);
    stop();
  });
});

describe("the shell's commands", () => {
  it("are desktop_status and notify, with the Rust parameter names", async () => {
    const invoke = vi.fn(() => Promise.resolve(undefined));
    const shell = tauriShell(invoke as never);
    await shell.setStatus({ tooltip: "t", summary: "s", open: "Ouvrir smsdesk", quit: "Quitter" });
    await shell.notify({ title: "a", body: "b" });
    expect(invoke.mock.calls).toEqual([
      ["desktop_status", { tooltip: "t", summary: "s", open: "Ouvrir smsdesk", quit: "Quitter" }],
      ["notify", { title: "a", body: "b" }],
    ]);
  });
});
