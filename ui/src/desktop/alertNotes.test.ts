import { describe, expect, it } from "vitest";
import type { AlertsOverview } from "../bindings/AlertsOverview";
import { createI18n } from "../i18n/i18n";
import { alert, alertsOverview, linkDown } from "../test/fakeAlerts";
import { FakeBackend } from "../test/fakeBackend";
import { T0 } from "../test/fixtures";
import { alertNote, freshAlerts, shellNotifier, watchAlerts, webNotifier, type NotePermission } from "./alertNotes";
import type { DesktopNote } from "./desktop";

const en = createI18n(["en-US"]);
const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** The browser's Notification as far as the notes use it: what was shown, and the permission asked. */
function fakeNotification(permission: NotePermission, answer: NotePermission = "granted") {
  const shown: { title: string; body: string | undefined; clicked: () => void }[] = [];
  let asked = 0;
  class Fake {
    static permission = permission;
    static requestPermission(): Promise<NotePermission> {
      asked += 1;
      Fake.permission = answer;
      return Promise.resolve(answer);
    }
    onclick: (() => void) | null = null;
    constructor(title: string, options?: { body?: string }) {
      shown.push({ title, body: options?.body, clicked: () => this.onclick?.() });
    }
  }
  return { Notification: Fake as unknown as typeof Notification, shown, asked: () => asked };
}

describe("notes about alerts", () => {
  it("announce only an alert not seen before that is open and acknowledged by nobody; nothing on the first look", () => {
    const before = [alert(1), alert(2, { resolvedAtMs: T0 })];
    expect(freshAlerts(null, before), "what fired before the page opened is not news").toEqual([]);
    const seen = new Set([1, 2]);
    const now = [
      alert(1),
      alert(3),
      alert(4, { acknowledgedAtMs: T0, acknowledgedBy: "Olga", acknowledgementNote: "on it" }),
      alert(5, { resolvedAtMs: T0 }),
    ];
    expect(freshAlerts(seen, now).map((a) => a.id)).toEqual([3]);
  });

  it("say the alert's title and since when, in the operator's language", () => {
    expect(alertNote(linkDown(3), en)).toEqual({
      title: "Alert: Connection primary is down",
      body: `Since ${en.formatDateTime(T0 - 300_000)}. Open the Alerts screen to acknowledge it.`,
    });
    expect(alertNote(alert(2), createI18n(["fr-FR"])).title).toBe("Alerte : Les exceptions s’accumulent");
  });

  it("show through the browser's Notification, which opens the Alerts screen when clicked; nothing where the API is missing", async () => {
    expect(webNotifier({}), "no Notification API: no notifier").toBeNull();
    const fake = fakeNotification("default");
    const notifier = webNotifier(fake)!;
    expect(notifier.permission()).toBe("default");
    await expect(notifier.request()).resolves.toBe("granted");
    expect(fake.asked()).toBe(1);
    let opened = 0;
    notifier.show({ title: "Alert: Many opt-outs", body: "Since today." }, () => (opened += 1));
    expect(fake.shown.map((s) => [s.title, s.body])).toEqual([["Alert: Many opt-outs", "Since today."]]);
    fake.shown[0]?.clicked();
    expect(opened).toBe(1);
  });

  it("in the window, go through its shell, which asks nobody", async () => {
    const notes: DesktopNote[] = [];
    const notifier = shellNotifier({ setStatus: () => Promise.resolve(), notify: (note) => (notes.push(note), Promise.resolve()) });
    expect(notifier.permission()).toBe("granted");
    await expect(notifier.request()).resolves.toBe("granted");
    notifier.show({ title: "t", body: "b" }, () => {});
    expect(notes).toEqual([{ title: "t", body: "b" }]);
  });

  it("are shown as alerts fire, looked for on alert changes only, until stopped", async () => {
    const backend = new FakeBackend();
    let current: AlertsOverview = alertsOverview([alert(1)]);
    let looks = 0;
    backend.alerts = () => {
      looks += 1;
      return Promise.resolve(current);
    };
    const shown: DesktopNote[] = [];
    const stop = watchAlerts(backend, (note) => shown.push(note), () => en);
    await flush();
    expect(shown, "alert 1 was there already").toEqual([]);

    current = alertsOverview([linkDown(2), alert(1)]);
    backend.emit({ entity: "message", id: 9 });
    await flush();
    expect(looks, "a message's change is not looked at").toBe(1);
    backend.emit({ entity: "alert", id: 2 });
    await flush();
    expect(shown.map((n) => n.title)).toEqual(["Alert: Connection primary is down"]);
    backend.emit({ entity: "alert", id: 2 });
    await flush();
    expect(shown, "announced once").toHaveLength(1);

    stop();
    expect(backend.subscribers).toBe(0);
  });
});
