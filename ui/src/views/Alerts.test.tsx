// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { AcknowledgeAlert } from "../bindings/AcknowledgeAlert";
import type { AlertsOverview } from "../bindings/AlertsOverview";
import type { TestAlert } from "../bindings/TestAlert";
import type { TestAlertResult } from "../bindings/TestAlertResult";
import { createI18n } from "../i18n/i18n";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { alert, alertsOverview, linkDown, resolvedDiskLow } from "../test/fakeAlerts";
import { FakeBackend } from "../test/fakeBackend";
import { person, T0 } from "../test/fixtures";
import { Alerts } from "./Alerts";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const all = (root: ParentNode, id: string): HTMLElement[] => [...root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
const text = (root: ParentNode, id: string): string => byTestId(root as HTMLElement, id).textContent ?? "";
const when = (ms: number, tag = "en-US"): string => createI18n([tag]).formatDateTime(ms);

/** A backend answering the screen with `overview` (changed by the test as it goes), recording what it was asked. */
function engine(first: AlertsOverview) {
  const backend = new FakeBackend();
  let current = first;
  const asked = { overviews: 0, acks: [] as [number, AcknowledgeAlert][], tests: [] as TestAlert[] };
  backend.alerts = () => {
    asked.overviews += 1;
    return Promise.resolve(current);
  };
  backend.acknowledgeAlert = (id, request) => {
    asked.acks.push([id, request]);
    return Promise.resolve();
  };
  return { backend, asked, answer: (next: AlertsOverview) => (current = next) };
}

async function show(e: ReturnType<typeof engine>, languages: string[] = ["en-US"], me = person("operator")): Promise<HTMLElement> {
  view = await render(<Alerts backend={e.backend} />, languages, me);
  await settle();
  return view.container;
}

const firing = (root: HTMLElement, id: number): HTMLElement => root.querySelector<HTMLElement>(`[data-testid="alert-firing"][data-id="${id}"]`)!;

describe("the Alerts screen", () => {
  it("shows a rule of a newer engine by its code rather than failing", async () => {
    const overview = alertsOverview();
    const newer = { rule: "sim_swap_burst", setting: null, value: null } as unknown as AlertsOverview["rules"][number];
    const root = await show(engine({ ...overview, rules: [...overview.rules, newer] }));
    const row = root.querySelector<HTMLElement>('[data-testid="alert-rule"][data-rule="sim_swap_burst"]');
    expect(row?.querySelector("th")?.textContent).toBe("sim_swap_burst");
    expect(queryTestId(root, "alerts-error")).toBeNull();
  });

  it("shows each firing alert in plain words: since when, its figures, and what each channel was told", async () => {
    const root = await show(engine(alertsOverview([linkDown(3), alert(2)])));
    expect(all(root, "alert-firing").map((a) => a.dataset["rule"])).toEqual(["link_down", "open_exceptions"]);
    const link = firing(root, 3);
    expect(text(link, "alert-title")).toBe("Connection primary is down");
    expect(text(link, "alert-since"), "since the link went, not since the alert fired").toBe(`Since ${when(T0 - 5 * 60_000)}`);
    expect(text(link, "alert-figure-waiting")).toBe("12");
    expect(byTestId(link, "alert-figure-error").querySelector('[lang="en"]')?.textContent, "the system's own words, marked English").toBe(
      "connection refused (os error 111)",
    );
    expect(link.textContent).toContain(`Last reminder ${when(T0 + 3_600_000)}`);
    const notices = all(link, "alert-notice");
    expect(notices.map((n) => [n.dataset["kind"], n.dataset["channel"], n.dataset["outcome"]])).toEqual([
      ["fired", "email", "sent"],
      ["fired", "webhook", "quiet"],
      ["repeated", "email", "failed"],
    ]);
    expect(notices[0]?.textContent).toBe(`${when(T0)} · E-mail · Alert: Sent — ops@example.org`);
    expect(notices[1]?.textContent).toBe(`${when(T0 + 1_000)} · Webhooks · Alert: Held back by quiet hours`);
    expect(notices[2]?.querySelector('[lang="en"]')?.textContent).toBe("the SMTP server smtp.example.org:587 did not take it");
    const exceptions = firing(root, 2);
    expect(text(exceptions, "alert-title")).toBe("Exceptions are piling up");
    expect([text(exceptions, "alert-figure-open"), text(exceptions, "alert-figure-over")]).toEqual(["57", "50"]);
    expect(text(exceptions, "alert-not-acknowledged")).toBe("Not acknowledged yet: reminders go on until someone does.");
  });

  it("says who acknowledged an alert still firing, when, and their note; it offers no second acknowledgement", async () => {
    const acknowledged = alert(4, { acknowledgedAtMs: T0 + 600_000, acknowledgedBy: "Olga", acknowledgementNote: "provider called, fix at 15:00" });
    const root = await show(engine(alertsOverview([acknowledged])));
    const card = firing(root, 4);
    expect(card.dataset["acknowledged"]).toBe("true");
    expect(text(card, "alert-acknowledged")).toBe(`Acknowledged by Olga on ${when(T0 + 600_000)}: provider called, fix at 15:00`);
    expect(card.querySelector(".badge")?.textContent).toBe("Acknowledged");
    expect(queryTestId(card, "alert-ack-open")).toBeNull();
  });

  it("acknowledges with a required note, saying first what it stops and what it does not, then shows it acknowledged", async () => {
    const e = engine(alertsOverview([alert(2)]));
    const root = await show(e);
    await click(byTestId(firing(root, 2), "alert-ack-open"));
    expect(text(root, "alert-ack-explain")).toBe(
      "Acknowledging tells everyone it is being dealt with: the reminders stop, but the notice that it is resolved is still sent.",
    );
    const go = byTestId<HTMLButtonElement>(root, "alert-ack-go");
    expect(go.disabled, "no acknowledgement without a note").toBe(true);
    expect(text(root, "alert-ack-blocked")).toBe("Write a note first.");
    await type(byTestId<HTMLTextAreaElement>(root, "alert-ack-note"), "  working through the oldest  ");
    e.answer(alertsOverview([alert(2, { acknowledgedAtMs: T0 + 60_000, acknowledgedBy: "Olga", acknowledgementNote: "working through the oldest" })]));
    await submit(byTestId<HTMLFormElement>(root, "alert-ack-form"));
    await settle();
    expect(e.asked.acks).toEqual([[2, { note: "working through the oldest" }]]);
    expect(firing(root, 2).dataset["acknowledged"]).toBe("true");
    expect(queryTestId(root, "alert-ack-form")).toBeNull();
  });

  it("reads the alerts again when someone acknowledged it first, and shows who", async () => {
    const e = engine(alertsOverview([alert(2)]));
    e.backend.acknowledgeAlert = () => Promise.reject(new BackendError("bad_request", "alert 2 was acknowledged already"));
    const root = await show(e);
    await click(byTestId(root, "alert-ack-open"));
    await type(byTestId<HTMLTextAreaElement>(root, "alert-ack-note"), "on it");
    e.answer(alertsOverview([alert(2, { acknowledgedAtMs: T0, acknowledgedBy: "Alice", acknowledgementNote: "mine" })]));
    await submit(byTestId<HTMLFormElement>(root, "alert-ack-form"));
    await settle();
    expect(text(root, "alert-acknowledged")).toContain("Alice");
  });

  it("offers a viewer no acknowledgement", async () => {
    const root = await show(engine(alertsOverview([alert(2)])), ["en-US"], person("viewer"));
    expect(queryTestId(firing(root, 2), "alert-not-acknowledged")).not.toBeNull();
    expect(queryTestId(root, "alert-ack-open")).toBeNull();
  });

  it("says calmly that nothing is firing", async () => {
    const root = await show(engine(alertsOverview([resolvedDiskLow(1)])));
    expect(all(root, "alert-firing")).toEqual([]);
    expect(byTestId(root, "alerts-firing").dataset["count"]).toBe("0");
    expect(text(root, "alerts-none")).toContain("Nothing is firing");
  });

  it("lists the alerts that ended, the latest first: fired, resolved, how long, and who acknowledged it with the note", async () => {
    const older = alert(1, { firedAtMs: T0 - 86_400_000, resolvedAtMs: T0 - 86_400_000 + 40_000 });
    const root = await show(engine(alertsOverview([linkDown(5), older, resolvedDiskLow(3)])));
    const rows = all(root, "alert-history-row");
    expect(rows.map((r) => r.dataset["id"]), "the open one is not history; the latest ended first").toEqual(["3", "1"]);
    const [disk, exceptions] = rows;
    expect(text(disk!, "alert-history-title")).toBe("The disk is almost full");
    expect(text(disk!, "alert-history-lasted")).toBe("2 h 5 min");
    expect(text(disk!, "alert-history-ack")).toBe(`Olga, ${when(T0 - 3 * 3_600_000)}old backups moved to the NAS`);
    expect(text(disk!, "alert-history-note")).toBe("old backups moved to the NAS");
    expect(disk!.textContent).toContain(when(T0 - 4 * 3_600_000));
    expect(text(exceptions!, "alert-history-lasted")).toBe("under a minute");
    expect(text(exceptions!, "alert-history-ack")).toBe("Not acknowledged");
  });

  it("lists each rule with its threshold, and leads an admin to Settings", async () => {
    const e = engine(alertsOverview());
    const root = await show(e, ["en-US"], person("admin"));
    const rules = all(root, "alert-rule");
    expect(rules.map((r) => r.dataset["rule"])).toEqual(["link_down", "otp_unknown", "open_exceptions"]);
    expect(rules.map((r) => byTestId(r, "alert-rule-when").textContent)).toEqual([
      "A connection stays unbound for 5 minutes",
      "A one-time code was handed to the provider and its answer never came",
      "More than 50 exceptions are open",
    ]);
    expect(rules.map((r) => byTestId(r, "alert-rule-setting").textContent)).toEqual([
      "alerts.link_down_minutes = 5",
      "Always on",
      "alerts.open_exceptions_over = 50",
    ]);
    expect(byTestId(root, "alerts-rules-settings").getAttribute("href")).toBe("#/settings");
    await view?.unmount();
    const operator = await show(e);
    expect(queryTestId(operator, "alerts-rules-settings"), "Settings are an admin's").toBeNull();
  });

  it("shows each channel ready or what it misses, its quiet hours, and the latest tests", async () => {
    const root = await show(engine(alertsOverview()));
    const email = byTestId(root, "alert-channel-email");
    expect(email.dataset["ready"]).toBe("true");
    expect(text(email, "alert-channel-detail")).toBe("Goes to: ops@example.org");
    expect(text(email, "alert-channel-quiet")).toBe("Quiet hours: 22:00-07:00. What they hold back is sent when they end.");
    const webhook = byTestId(root, "alert-channel-webhook");
    expect(webhook.dataset["ready"]).toBe("false");
    expect(text(webhook, "alert-channel-detail"), "what it misses, in the reader's words").toBe(
      "Missing: an API key with the scope “alerts” and a webhook (API keys).",
    );
    expect(text(webhook, "alert-channel-quiet")).toBe("No quiet hours.");
    expect(queryTestId(root, "alert-test-email"), "tests are an admin's").toBeNull();
    const tests = all(root, "alerts-other-row");
    expect(tests.map((r) => [r.dataset["kind"], r.dataset["channel"], r.dataset["outcome"]])).toEqual([["test", "email", "sent"]]);
  });

  it("sends an admin's test alert on a channel and says what became of it", async () => {
    const e = engine(alertsOverview());
    const answers: Record<string, TestAlertResult> = {
      email: { sent: true, detail: "ops@example.org" },
      webhook: { sent: false, detail: "no API key with the scope `alerts` has a webhook" },
    };
    e.backend.testAlert = (request) => {
      e.asked.tests.push(request);
      return Promise.resolve(answers[request.channel]!);
    };
    const root = await show(e, ["en-US"], person("admin"));
    const before = e.asked.overviews;
    await click(byTestId(root, "alert-test-email"));
    await settle();
    await click(byTestId(root, "alert-test-webhook"));
    await settle();
    expect(e.asked.tests).toEqual([{ channel: "email" }, { channel: "webhook" }]);
    const sent = byTestId(byTestId(root, "alert-channel-email"), "alert-test-result");
    expect([sent.dataset["sent"], sent.textContent]).toEqual(["true", "Test alert sent to ops@example.org."]);
    const refused = byTestId(byTestId(root, "alert-channel-webhook"), "alert-test-result");
    expect(refused.dataset["sent"]).toBe("false");
    expect(refused.textContent).toBe("The test alert was not sent: no API key with the scope `alerts` has a webhook");
    expect(e.asked.overviews, "the latest tests are read again").toBeGreaterThan(before);
  });

  it("follows alert changes as they come, and says when alerts are turned off", async () => {
    const e = engine(alertsOverview());
    const root = await show(e);
    expect(all(root, "alert-firing")).toEqual([]);
    e.answer(alertsOverview([alert(7)], { enabled: false }));
    await settle(() => e.backend.emit({ entity: "message", id: 1 }), 400);
    expect(all(root, "alert-firing"), "a message's change is not an alert's").toEqual([]);
    await settle(() => e.backend.emit({ entity: "alert", id: 7 }), 400);
    expect(all(root, "alert-firing").map((a) => a.dataset["id"])).toEqual(["7"]);
    expect(text(root, "alerts-disabled")).toContain("alerts.enabled");
  });

  it("speaks French and Russian", async () => {
    const overview = alertsOverview([linkDown(3)]);
    const fr = await show(engine(overview), ["fr-FR"]);
    expect(text(fr, "alert-title")).toBe("La connexion primary est coupée");
    expect(text(fr, "alert-since")).toBe(`Depuis le ${when(T0 - 5 * 60_000, "fr-FR")}`);
    expect(fr.querySelector("h2")?.textContent).toBe("Alertes");
    await view?.unmount();
    const ru = await show(engine(overview), ["ru-RU"]);
    expect(text(ru, "alert-title")).toBe("Соединение primary разорвано");
    expect(text(ru, "alert-figure-waiting")).toBe("12");
  });
});
