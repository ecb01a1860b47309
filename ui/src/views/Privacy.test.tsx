// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { EraseNumber } from "../bindings/EraseNumber";
import type { SubjectRequest } from "../bindings/SubjectRequest";
import { createI18n } from "../i18n/i18n";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { erased, HASH, overview, retentionRun, subjectAccess } from "../test/fakePrivacy";
import { T0 } from "../test/fixtures";
import { isNumberHash } from "./message/removed";
import { Privacy } from "./Privacy";
import { recordFileName } from "./privacy/SaveRecord";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const all = (root: ParentNode, id: string): HTMLElement[] => [...root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
const text = (root: ParentNode, id: string): string => byTestId(root as HTMLElement, id).textContent ?? "";
const when = (ms: number): string => createI18n(["en-US"]).formatDateTime(ms);

/** A backend answering the screen, recording what it was asked. */
function engine() {
  const backend = new FakeBackend();
  const asked = { overviews: 0, runs: 0, lookups: [] as SubjectRequest[], erasures: [] as EraseNumber[] };
  const saved: { as: "json" | "csv"; text: string; name: string }[] = [];
  backend.privacyOverview = () => {
    asked.overviews += 1;
    return Promise.resolve(overview());
  };
  backend.runRetention = () => {
    asked.runs += 1;
    return Promise.resolve(retentionRun());
  };
  backend.subjectAccess = (request) => {
    asked.lookups.push(request);
    return Promise.resolve(subjectAccess());
  };
  backend.eraseNumber = (request) => {
    asked.erasures.push(request);
    return Promise.resolve(erased({ still_sending: 2 }));
  };
  backend.saveJson = (content, name) => {
    saved.push({ as: "json", text: content, name });
    return Promise.resolve(true);
  };
  backend.saveCsv = (content, name) => {
    saved.push({ as: "csv", text: content, name });
    return Promise.resolve(true);
  };
  return { backend, asked, saved };
}

async function show(e: ReturnType<typeof engine>, languages: string[] = ["en-US"]): Promise<HTMLElement> {
  view = await render(<Privacy backend={e.backend} />, languages);
  await settle();
  return view.container;
}

describe("personal data: the retention in force", () => {
  it("lists each period in days, at the next run, or kept for ever, and says where they are set and what stays", async () => {
    const root = await show(engine());
    const periods = all(root, "privacy-period");
    expect(periods.map((p) => p.dataset["period"])).toEqual([
      "otp_text_days",
      "transactional_text_days",
      "bulk_text_days",
      "destination_days",
      "replies_days",
      "audit_days",
    ]);
    expect(periods.map((p) => p.querySelector("td")?.textContent)).toEqual([
      "1 day",
      "90 days",
      "Removed at the next run",
      "365 days",
      "365 days",
      "Kept for ever",
    ]);
    expect(periods[0]?.querySelector("th")?.textContent).toBe("Text of one-time codes (kept masked)");
    expect(text(root, "privacy-config")).toBe("The periods are set in the [retention] section of smsdesk.toml (see docs/admin/personal-data.md).");
    expect(root.textContent).toContain("The facts stay: ids, times, statuses, receipts’ parsed fields and decisions.");
  });

  it("runs retention now, says what it did, and loads the overview again", async () => {
    const e = engine();
    const root = await show(e);
    expect(e.asked.overviews).toBe(1);
    await click(byTestId(root, "privacy-run"));
    await settle();
    expect(e.asked.runs).toBe(1);
    const result = byTestId(root, "privacy-run-result");
    expect(result.textContent).toContain(`Retention ran at ${when(T0)}, in 42 ms.`);
    expect(all(result, "privacy-run-redacted")[0]?.querySelectorAll("li")).toHaveLength(2);
    expect(text(result, "privacy-run-redacted")).toBe("Texts: 12Numbers: 3");
    expect(text(result, "privacy-run-batches")).toBe("Batches: 2. The longest held the database for 9 ms.");
    expect(text(result, "privacy-wal")).toContain("was emptied");
    expect(e.asked.overviews, "the latest removals follow the run").toBe(2);
  });

  it("says why a run did not go through", async () => {
    const e = engine();
    e.backend.runRetention = () => Promise.reject(new BackendError("forbidden", "running retention is an admin's"));
    const root = await show(e);
    await click(byTestId(root, "privacy-run"));
    await settle();
    expect(byTestId(root, "privacy-run-error").dataset["code"]).toBe("forbidden");
    expect(queryTestId(root, "privacy-run-result")).toBeNull();
  });

  it("offers to retry when the overview cannot be loaded", async () => {
    const e = engine();
    e.backend.privacyOverview = () => Promise.reject(new BackendError("unreachable", "no answer"));
    const root = await show(e);
    expect(byTestId(root, "privacy-error").textContent).toContain("Could not load the retention in force");
    expect(queryTestId(root, "retry")).not.toBeNull();
  });
});

describe("personal data: the latest removals", () => {
  it("shows when, why in words, by whom, and what each removed; a run still going says so", async () => {
    const root = await show(engine());
    const rows = all(byTestId(root, "privacy-recent"), "privacy-recent-row");
    expect(rows.map((r) => r.dataset["rule"])).toEqual(["erasure", "destination_days", "text_days"]);
    expect(rows.map((r) => text(r, "privacy-recent-rule"))).toEqual(["Erasure of a number", "Retention of numbers", "Retention of message texts"]);
    expect(rows.map((r) => text(r, "privacy-recent-by"))).toEqual(["Alice", "smsdesk (daily retention)", "smsdesk (daily retention)"]);
    expect(rows[0]?.querySelector("time")?.getAttribute("datetime")).toBe(new Date(T0 + 7_200_000).toISOString());
    expect(text(rows[1]!, "privacy-recent-removed")).toBe("Numbers: 3Receipts: 4");
    expect(text(rows[2]!, "privacy-recent-removed")).toBe("Not finished");
  });

  it("says when nothing was removed yet", async () => {
    const e = engine();
    e.backend.privacyOverview = () => Promise.resolve(overview({ recent: [] }));
    const root = await show(e);
    expect(text(root, "privacy-recent-empty")).toBe("Nothing has been removed yet.");
  });
});

describe("personal data: access by number", () => {
  async function lookUp(e: ReturnType<typeof engine>, number = " +33 6 12 34 56 00 "): Promise<HTMLElement> {
    const root = await show(e);
    expect(byTestId<HTMLButtonElement>(root, "privacy-access-go").disabled, "nothing typed, nothing to look up").toBe(true);
    await type(byTestId<HTMLInputElement>(root, "privacy-access-number"), number);
    await click(byTestId(root, "privacy-access-go"));
    await settle();
    return root;
  }

  it("counts and lists what is held: messages with their state and text, replies, opt-out entries", async () => {
    const e = engine();
    const root = await lookUp(e);
    expect(e.asked.lookups).toEqual([{ number: "+33 6 12 34 56 00" }]);
    expect(byTestId(root, "privacy-access-result").querySelector("h3")?.textContent).toBe("Held about +33612345600");
    expect(text(root, "privacy-access-counts")).toBe("Messages: 2. Replies: 1. Opt-out entries: 1.");
    const [removed, otp] = all(root, "privacy-access-message");
    expect(removed?.textContent).toContain("Accepted by the provider");
    expect(removed?.textContent).toContain("Delivered");
    expect(text(removed!, "privacy-access-text-removed")).toBe(`Removed on ${when(T0 + 86_400_000)}`);
    expect(removed?.textContent).toContain("Number kept as its hash");
    expect(otp?.textContent).toContain("One-time code");
    expect(otp?.textContent).toContain("Votre code : ••••••");
    expect(all(root, "privacy-access-reply")[0]?.textContent).toContain("STOP");
    expect(all(root, "privacy-access-reply")[0]?.textContent).toContain("To stop");
    expect(all(root, "privacy-access-optout")[0]?.textContent).toContain("Still on the list");
  });

  it("saves the record as JSON and as CSV, under a name that never holds the number", async () => {
    const e = engine();
    const root = await lookUp(e);
    await click(byTestId(root, "privacy-access-json"));
    await settle();
    await click(byTestId(root, "privacy-access-csv"));
    await settle();
    expect(e.saved.map((s) => s.as)).toEqual(["json", "csv"]);
    expect(e.saved[0]?.text).toBe(JSON.stringify(subjectAccess().record, null, 2));
    expect(e.saved[1]?.text).toBe(subjectAccess().csv);
    expect(e.saved[0]?.name).toMatch(/^smsdesk-subject-access-\d{8}-\d{4}\.json$/);
    expect(e.saved[1]?.name).toMatch(/^smsdesk-subject-access-\d{8}-\d{4}\.csv$/);
    expect(text(root, "privacy-access-saved")).toBe("The record was saved.");
    expect(recordFileName(new Date(2026, 11, 6, 9, 5), "csv")).toBe("smsdesk-subject-access-20261206-0905.csv");
  });

  it("offers CSV alone where JSON cannot be saved (the window), and says so", async () => {
    const e = engine();
    delete e.backend.saveJson;
    const root = await lookUp(e);
    expect(queryTestId(root, "privacy-access-json")).toBeNull();
    expect(text(root, "privacy-access-no-json")).toContain("saves the record as CSV");
    await click(byTestId(root, "privacy-access-csv"));
    await settle();
    expect(e.saved.map((s) => s.as)).toEqual(["csv"]);
  });

  it("shows a number the engine refused under the field", async () => {
    const e = engine();
    e.backend.subjectAccess = () =>
      Promise.reject(
        new BackendError("invalid", "invalid request", {
          errors: [{ field: "number", code: "invalid_number", params: {}, message: "not a phone number" }],
        }),
      );
    const root = await lookUp(e, "12");
    expect(text(root, "privacy-access-number-errors")).toBe("This is not a phone number a message can be sent to.");
    expect(byTestId(root, "privacy-access-number").getAttribute("aria-invalid")).toBe("true");
    expect(byTestId(root, "privacy-access-error").dataset["code"]).toBe("invalid");
    expect(queryTestId(root, "privacy-access-result")).toBeNull();
  });

  it("says when nothing is held", async () => {
    const e = engine();
    e.backend.subjectAccess = () =>
      Promise.resolve({ record: { number: "+33612345699", messages: [], replies: [], opt_outs: [] }, csv: "kind,id,at\r\n" });
    const root = await lookUp(e);
    expect(text(root, "privacy-access-counts")).toBe("Nothing is held about this number.");
    expect(queryTestId(root, "privacy-access-messages")).toBeNull();
  });
});

describe("personal data: erasing a number", () => {
  async function fill(root: HTMLElement, number: string, note: string): Promise<void> {
    await type(byTestId<HTMLInputElement>(root, "privacy-erase-number"), number);
    await type(byTestId<HTMLTextAreaElement>(root, "privacy-erase-note"), note);
  }

  it("asks for the number, a note and a confirmation, after saying what it does and that it cannot be undone", async () => {
    const e = engine();
    const root = await show(e);
    const go = byTestId<HTMLButtonElement>(root, "privacy-erase-go");
    const warning = text(root, "privacy-erase-warning");
    expect(warning).toContain("This cannot be undone");
    expect(warning).toContain("Messages still waiting to be sent to this number are cancelled.");
    expect(warning).toContain("it stays there as the number’s hash");
    expect(warning).toContain("Backups taken before still hold the data until they are pruned.");
    expect(go.disabled).toBe(true);
    expect(text(root, "privacy-erase-blocked")).toBe("Type the phone number.");
    await fill(root, "+33612345600", "  ");
    expect(text(root, "privacy-erase-blocked")).toBe("Write a note to say why.");
    await type(byTestId<HTMLTextAreaElement>(root, "privacy-erase-note"), "asked by email on 3 December");
    expect(text(root, "privacy-erase-blocked")).toBe("Tick the box to confirm.");
    expect(go.disabled).toBe(true);
    await submit(byTestId<HTMLFormElement>(root, "privacy-erase-form"));
    expect(e.asked.erasures, "nothing is erased before it is confirmed").toEqual([]);
    await click(byTestId(root, "privacy-erase-confirm"));
    expect(go.disabled).toBe(false);
    expect(queryTestId(root, "privacy-erase-blocked")).toBeNull();
  });

  it("erases, then says what it removed, the hash kept, what is still being sent, and clears the form", async () => {
    const e = engine();
    const root = await show(e);
    await type(byTestId<HTMLInputElement>(root, "privacy-access-number"), "+33612345600");
    await click(byTestId(root, "privacy-access-go"));
    await settle();
    expect(queryTestId(root, "privacy-access-result")).not.toBeNull();
    await fill(root, "+33612345600", " asked by email on 3 December ");
    await click(byTestId(root, "privacy-erase-confirm"));
    await click(byTestId(root, "privacy-erase-go"));
    await settle();
    expect(e.asked.erasures).toEqual([{ number: "+33612345600", note: "asked by email on 3 December" }]);
    const result = byTestId(root, "privacy-erase-result");
    expect(text(result, "privacy-erase-hash")).toBe(HASH);
    expect(isNumberHash(HASH), "the hash the engine writes").toBe(true);
    expect(text(result, "privacy-erase-redacted")).toBe("Texts: 2Numbers: 2Replies: 1Opt-out entries: 1Messages cancelled: 1");
    expect(text(result, "privacy-erase-still-sending")).toBe(
      "2 messages to this number were being sent; erase again once they are done.",
    );
    expect(byTestId(result, "privacy-wal").dataset["emptied"]).toBe("true");
    expect(byTestId<HTMLInputElement>(root, "privacy-erase-number").value).toBe("");
    expect(byTestId<HTMLTextAreaElement>(root, "privacy-erase-note").value).toBe("");
    expect(byTestId<HTMLInputElement>(root, "privacy-erase-confirm").checked).toBe(false);
    expect(e.asked.overviews, "the erasure joins the latest removals").toBe(2);
    expect(queryTestId(root, "privacy-access-result"), "a record shown before may hold what was erased").toBeNull();
  });

  it("says nothing of messages still being sent when there are none, and when the log could not be emptied", async () => {
    const e = engine();
    e.backend.eraseNumber = () => Promise.resolve(erased({ still_sending: 0, wal_emptied: false }));
    const root = await show(e);
    await fill(root, "+33612345600", "asked");
    await click(byTestId(root, "privacy-erase-confirm"));
    await click(byTestId(root, "privacy-erase-go"));
    await settle();
    expect(queryTestId(root, "privacy-erase-still-sending")).toBeNull();
    expect(text(root, "privacy-wal")).toContain("at its next checkpoint");
  });

  it("shows the fields the engine refused under each, and keeps what was typed", async () => {
    const e = engine();
    e.backend.eraseNumber = () =>
      Promise.reject(
        new BackendError("invalid", "invalid request", {
          errors: [
            { field: "number", code: "invalid_number", params: {}, message: "not a phone number" },
            { field: "note", code: "required", params: {}, message: "say why" },
          ],
        }),
      );
    const root = await show(e);
    await fill(root, "12", "asked");
    await click(byTestId(root, "privacy-erase-confirm"));
    await click(byTestId(root, "privacy-erase-go"));
    await settle();
    expect(text(root, "privacy-erase-number-errors")).toBe("This is not a phone number a message can be sent to.");
    expect(text(root, "privacy-erase-note-errors")).toBe("A note saying why is required.");
    expect(byTestId(root, "privacy-erase-note").getAttribute("aria-invalid")).toBe("true");
    expect(byTestId(root, "privacy-erase-error").dataset["code"]).toBe("invalid");
    expect(byTestId<HTMLInputElement>(root, "privacy-erase-number").value).toBe("12");
    expect(queryTestId(root, "privacy-erase-result")).toBeNull();
  });
});

describe("personal data in French and Russian", () => {
  it("speaks French", async () => {
    const root = await show(engine(), ["fr-FR"]);
    expect(root.querySelector("h2")?.textContent).toBe("Données personnelles");
    expect(all(root, "privacy-period").map((p) => p.querySelector("td")?.textContent)).toContain("Conservé sans limite");
    expect(text(root, "privacy-erase-go")).toBe("Effacer ce numéro");
    expect(text(all(root, "privacy-recent-row")[0]!, "privacy-recent-rule")).toBe("Effacement d’un numéro");
  });

  it("speaks Russian, days in their plural forms", async () => {
    const e = engine();
    e.backend.privacyOverview = () =>
      Promise.resolve(overview({ retention: { ...overview().retention, otp_text_days: 1, transactional_text_days: 3, bulk_text_days: 30 } }));
    const root = await show(e, ["ru-RU"]);
    expect(root.querySelector("h2")?.textContent).toBe("Персональные данные");
    expect(all(root, "privacy-period").map((p) => p.querySelector("td")?.textContent).slice(0, 3)).toEqual(["1 день", "3 дня", "30 дней"]);
  });
});
