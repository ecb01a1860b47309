// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { Me } from "../../bindings/Me";
import type { MessageAction } from "../../bindings/MessageAction";
import type { MessageDetail as Detail } from "../../bindings/MessageDetail";
import type { RetryAdvice } from "../../bindings/RetryAdvice";
import type { RetryFact } from "../../bindings/RetryFact";
import { createI18n } from "../../i18n/i18n";
import { retryFactWords } from "../../i18n/reasons/words";
import { byTestId, click, queryTestId, render, settle, type, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { attempt, deliveredDetail, person, summary, T0 } from "../../test/fixtures";
import { MessageDetail } from "../MessageDetail";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const fact = (code: RetryFact["code"], params: Record<string, string> = {}): RetryFact => ({ code, params });
const { t } = createI18n(["en-US"]);

/** Message 7, failed, with the advice given; `at` is when its queue row last changed. */
function failed(retry: RetryAdvice, at = T0 + 2_000): Detail {
  const base = deliveredDetail();
  return {
    ...base,
    summary: summary(7, { status: "failed", state: "pending", rule: "no_report", attempts: 1 }),
    queue: { ...base.queue, status: "failed", accepted_at_ms: null, provider_message_ids: [], updated_at_ms: at },
    state: { ...base.state, state: "pending", rule: "no_report", reported_state: null, supporting_receipt_ids: [] },
    attempts: [attempt(21, { outcome: "permanent", command_status: 11, command_status_name: "ESME_RINVDSTADR", provider_message_id: null })],
    receipts: [],
    retry,
  };
}

/** The detail served as `current` says, the retries asked kept, and the retry form opened. */
async function opened(detail: Detail, me?: Me) {
  const backend = new FakeBackend();
  let current = detail;
  backend.message = () => Promise.resolve(current);
  const calls: MessageAction[] = [];
  backend.retry = (_id, action) => {
    calls.push(action);
    return Promise.resolve();
  };
  view = await render(<MessageDetail backend={backend} id={7} onClose={() => {}} onOpenException={() => {}} />, undefined, me);
  await settle();
  await click(byTestId(view.container, "retry-open"));
  return {
    root: view.container,
    calls,
    backend,
    serve: (next: Detail) => {
      current = next;
    },
  };
}

describe("the retry guard starts with the blocking fact", () => {
  it("an opted-out number: says so at once, asks no note and offers no send", async () => {
    const optedOut = fact("opted_out", { destination: "+33612345607" });
    const { root, calls } = await opened(failed({ blocked: [optedOut], confirm: [fact("may_arrive_twice")] }));
    const panel = byTestId(root, "retry-fact-blocked");
    expect(panel.getAttribute("role")).toBe("alert");
    expect(panel.dataset["code"]).toBe("opted_out");
    expect(panel.querySelector("h3")?.textContent).toBe("Its number is on the opt-out list");
    expect(byTestId(panel, "retry-fact").textContent).toBe(retryFactWords(optedOut, t));
    const form = byTestId(root, "retry-form");
    expect(form.querySelector("textarea"), "no note is asked").toBeNull();
    expect(form.querySelector('button[type="submit"]'), "nothing to send").toBeNull();
    expect(queryTestId(root, "retry-fact-confirm"), "what a note would confirm is not asked either").toBeNull();
    await click(byTestId(root, "retry-close"));
    expect(queryTestId(root, "retry-form")).toBeNull();
    expect(calls).toEqual([]);
  });

  it("a limit an operator may not pass: leads with it, and lists the rest after", async () => {
    const { root } = await opened(failed({ blocked: [fact("limit_reached", { max: "2" }), fact("expired")], confirm: [] }), person("operator"));
    const panel = byTestId(root, "retry-fact-blocked");
    expect(panel.querySelector("h3")?.textContent).toBe("It has had all the tries its kind allows");
    expect([...panel.querySelectorAll<HTMLElement>('[data-testid="retry-fact"]')].map((e) => e.dataset["code"])).toEqual([
      "limit_reached",
      "expired",
    ]);
    expect(byTestId(root, "limits-admin-only").textContent, "it says who may go past it").toBe("Only an admin may send it past these limits.");
    expect(byTestId(root, "retry-form").querySelector("textarea")).toBeNull();
  });
});

describe("facts to confirm come before the one note", () => {
  it("a network's rejection speaks of the rejection, not of arriving twice, and confirms with one note", async () => {
    const rejected = fact("rejected_by_network", { stat: "REJECTD" });
    const { root, calls } = await opened(failed({ blocked: [], confirm: [rejected] }));
    const panel = byTestId(root, "retry-fact-confirm");
    expect(panel.dataset["code"]).toBe("rejected_by_network");
    expect(panel.querySelector("h3")?.textContent).toBe("The network rejected it");
    expect(byTestId(panel, "retry-fact").textContent).toBe(retryFactWords(rejected, t));
    expect(panel.textContent).not.toMatch(/twice|second time/);
    expect(queryTestId(root, "retry-duplicate-evidence")).toBeNull();

    expect(byTestId(root, "retry-form").querySelectorAll("textarea").length, "one note field").toBe(1);
    const confirm = byTestId<HTMLButtonElement>(root, "retry-facts-confirm");
    expect(confirm.disabled, "confirming needs the note").toBe(true);
    await type(byTestId<HTMLTextAreaElement>(root, "retry-note"), "The customer's operator fixed the barring");
    await click(confirm);
    await settle();
    expect(calls).toEqual([{ note: "The customer's operator fixed the barring", confirm_duplicate: true, override_limits: false }]);
    expect(queryTestId(root, "action-done")).not.toBeNull();
  });

  it("a refusal for good confirms the permanent failure; an admin's limit overrides it; all in the first send", async () => {
    const { root, calls } = await opened(
      failed({ blocked: [], confirm: [fact("will_fail_again", { status: "ESME_RINVDSTADR" }), fact("limit_reached", { max: "2" })] }),
    );
    const panel = byTestId(root, "retry-fact-confirm");
    expect(panel.querySelector("h3")?.textContent).toBe("Sending it again will fail again");
    expect([...panel.querySelectorAll<HTMLElement>('[data-testid="retry-fact"]')].map((e) => e.dataset["code"])).toEqual([
      "will_fail_again",
      "limit_reached",
    ]);
    await type(byTestId<HTMLTextAreaElement>(root, "retry-note"), "Number corrected with the operator");
    await click(byTestId(root, "retry-facts-confirm"));
    await settle();
    expect(calls).toEqual([
      { note: "Number corrected with the operator", confirm_duplicate: false, override_limits: true, confirm_permanent_failure: true },
    ]);
  });

  it("may arrive twice: names the evidence of it", async () => {
    const base = deliveredDetail();
    const { root } = await opened({ ...base, retry: { blocked: [], confirm: [fact("may_arrive_twice")] } });
    const panel = byTestId(root, "retry-fact-confirm");
    expect(panel.querySelector("h3")?.textContent).toBe("This message may arrive twice");
    expect(byTestId(panel, "retry-duplicate-evidence").dataset["evidence"]).toBe("delivered");
  });

  it("with no advice, the retry is a plain one, as before", async () => {
    const { root } = await opened(failed({ blocked: [], confirm: [] }));
    expect(queryTestId(root, "retry-fact-confirm")).toBeNull();
    expect(queryTestId(root, "retry-fact-blocked")).toBeNull();
    expect(byTestId(root, "retry-submit").textContent).toBe("Send again");
  });
});

describe("no stale success", () => {
  it("“will be sent again” stays while it waits, and goes once the detail shows its new outcome", async () => {
    const s = await opened(failed({ blocked: [], confirm: [] }));
    const queued = failed({ blocked: [], confirm: [] }, T0 + 10_000);
    s.serve({ ...queued, queue: { ...queued.queue, status: "queued" }, summary: { ...queued.summary, status: "queued" } });
    await click(byTestId(s.root, "retry-submit"));
    await settle(300);
    expect(byTestId(s.root, "statement-queue").dataset["status"]).toBe("queued");
    expect(byTestId(s.root, "action-done").textContent).toBe("Put back in the queue: it will be sent again.");
    expect(byTestId(s.root, "action-done").classList.contains("notice-success")).toBe(true);

    // The new try is refused at once: the page reloads with the failure, and the success goes.
    s.serve({
      ...failed({ blocked: [], confirm: [] }, T0 + 12_000),
      attempts: [attempt(21, { outcome: "permanent" }), attempt(22, { attempt_no: 2, outcome: "permanent" })],
    });
    await settle(() => s.backend.emit({ entity: "queue", id: 7 }), 400);
    expect(byTestId(s.root, "statement-queue").dataset["status"]).toBe("failed");
    const line = byTestId(s.root, "action-done");
    expect(line.classList.contains("notice-success"), "no green line beside the failure").toBe(false);
    expect(line.dataset["phase"]).toBe("outcome");
    expect(line.textContent, "it says the retry was made, not that it will be sent").toBe("Sent again: what became of it is shown above.");
    expect(s.root.textContent).not.toContain("it will be sent again");
  });

  it("a retry that fails before the reload never shows success beside the failure once reloaded", async () => {
    const s = await opened(failed({ blocked: [], confirm: [] }));
    s.serve(failed({ blocked: [], confirm: [] }, T0 + 10_000));
    await click(byTestId(s.root, "retry-submit"));
    await settle(300);
    expect(byTestId(s.root, "statement-queue").dataset["status"]).toBe("failed");
    expect(s.root.querySelector(".notice-success")).toBeNull();
    expect(s.root.textContent).not.toContain("it will be sent again");
  });
});
