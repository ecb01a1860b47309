// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { Backend } from "../../backend";
import type { NotePermission, Notifier } from "../../desktop/alertNotes";
import type { DesktopNote } from "../../desktop/desktop";
import { NOTES_KEY, NotesChoice, useAlertNotes } from "../../desktop/notesChoice";
import { byTestId, click, render, settle, type Rendered } from "../../test/dom";
import { alert, alertsOverview } from "../../test/fakeAlerts";
import { FakeBackend } from "../../test/fakeBackend";
import { NotifyToggle } from "./NotifyToggle";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  localStorage.clear();
});

/** A notifier whose permission starts as `permission` and is answered `answer` when asked. */
function notifier(permission: NotePermission, answer: NotePermission = "granted") {
  const shown: DesktopNote[] = [];
  let current = permission;
  let asked = 0;
  const n: Notifier = {
    permission: () => current,
    request: () => {
      asked += 1;
      current = answer;
      return Promise.resolve(answer);
    },
    show: (note) => shown.push(note),
  };
  return { n, shown, asked: () => asked };
}

/** The toggle, and the app's watcher beside it, sharing one choice. */
function Harness({ backend, choice }: { backend: Backend; choice: NotesChoice }) {
  useAlertNotes(backend, choice);
  return <NotifyToggle choice={choice} />;
}

const toggle = (root: HTMLElement) => byTestId<HTMLInputElement>(root, "alerts-notify-toggle");

describe("notify me on this computer", () => {
  it("asks the browser only when ticked, keeps the choice in this browser, and notes each alert that fires from then on", async () => {
    const backend = new FakeBackend();
    let current = alertsOverview([alert(1)]);
    backend.alerts = () => Promise.resolve(current);
    const { n, shown, asked } = notifier("default");
    const choice = new NotesChoice(n, localStorage);
    view = await render(<Harness backend={backend} choice={choice} />);
    await settle();
    expect(toggle(view.container).checked).toBe(false);
    expect(asked(), "nothing is asked before the person ticks the box").toBe(0);
    expect(backend.subscribers, "nothing is watched while notes are off").toBe(0);

    await click(toggle(view.container));
    await settle();
    expect(asked()).toBe(1);
    expect(toggle(view.container).checked).toBe(true);
    expect(localStorage.getItem(NOTES_KEY)).toBe("on");

    current = alertsOverview([alert(2), alert(1)]);
    await settle(() => backend.emit({ entity: "alert", id: 2 }));
    expect(shown.map((note) => note.title)).toEqual(["Alert: Exceptions are piling up"]);

    await click(toggle(view.container));
    await settle();
    expect(toggle(view.container).checked).toBe(false);
    expect(localStorage.getItem(NOTES_KEY)).toBeNull();
    expect(backend.subscribers, "the watcher stopped").toBe(0);
  });

  it("says where to allow notifications when the browser refused them, and keeps nothing", async () => {
    const { n } = notifier("default", "denied");
    const choice = new NotesChoice(n, localStorage);
    view = await render(<NotifyToggle choice={choice} />, ["fr-FR"]);
    await click(toggle(view.container));
    await settle();
    expect(toggle(view.container).checked).toBe(false);
    expect(toggle(view.container).disabled).toBe(true);
    expect(byTestId(view.container, "alerts-notify").dataset["permission"]).toBe("denied");
    expect(view.container.textContent).toContain("Les notifications de smsdesk sont bloquées ici");
    expect(localStorage.getItem(NOTES_KEY)).toBeNull();
  });

  it("is on at once where it was chosen before and is still allowed", async () => {
    localStorage.setItem(NOTES_KEY, "on");
    const { n, asked } = notifier("granted");
    view = await render(<NotifyToggle choice={new NotesChoice(n, localStorage)} />);
    expect(toggle(view.container).checked).toBe(true);
    expect(asked()).toBe(0);
  });
});
