// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { ExceptionDetail } from "../bindings/ExceptionDetail";
import type { ExceptionFilter } from "../bindings/ExceptionFilter";
import type { CompareCandidates } from "../bindings/CompareCandidates";
import type { ExceptionPage } from "../bindings/ExceptionPage";
import type { FactCheck } from "../bindings/FactCheck";
import type { Me } from "../bindings/Me";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { SettingsView } from "../bindings/SettingsView";
import type { ResolveRequest } from "../bindings/ResolveRequest";
import { byTestId, click, queryTestId, render, settle, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { attempt, exceptionDetail, exceptionSummary, person, receipt, summary, T0 } from "../test/fixtures";
import { Exceptions } from "./Exceptions";
import { ExceptionView } from "./exceptions/ExceptionView";

async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    select.value = value;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

/** One fact as the engine compares a receipt's with a message's. */
function fact(
  name: FactCheck["fact"],
  verdict: FactCheck["verdict"],
  receipt: string | null,
  message: string,
  why: FactCheck["why"] = null,
): FactCheck {
  return { fact: name, verdict, why, receipt, message, receipt_ms: null, message_ms: null };
}

/** A backend holding one exception, which `resolve` settles the way the engine would. */
function holding(detail: ExceptionDetail) {
  const backend = new FakeBackend();
  let current = detail;
  const requests: ResolveRequest[] = [];
  backend.exception = () => Promise.resolve(current);
  backend.resolve = (_id, request) => {
    requests.push(request);
    return Promise.resolve();
  };
  const settleAs = (resolution: string, status: "resolved" | "dismissed" = "resolved") => {
    const r = requests.at(-1);
    current = {
      ...current,
      exception: {
        ...current.exception,
        status,
        resolution,
        resolution_note: r?.note ?? null,
        resolved_by: "operator",
        resolved_at_ms: T0 + 3_600_000,
      },
    };
  };
  return { backend, requests, settleAs };
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

async function open(detail: ExceptionDetail) {
  const h = holding(detail);
  view = await render(<ExceptionView backend={h.backend} id={detail.exception.id} onClose={() => {}} onOpenMessage={() => {}} />);
  await settle();
  return h;
}

const submitButton = (): HTMLButtonElement => byTestId<HTMLButtonElement>(view!.container, "resolve-submit");
const blocked = (): string | null => queryTestId(view!.container, "resolve-blocked")?.textContent ?? null;

describe("an exception", () => {
  it("shows what it means, the message it concerns, and its evidence side by side", async () => {
    await open(exceptionDetail());
    const root = view!.container;
    expect(root.querySelector("h2")?.textContent).toBe("Exception 5: Receipts disagree");
    expect(byTestId(root, "exception-explained").textContent).toContain("Two final receipts say different things");
    expect(byTestId(root, "exception-message").textContent).toContain("Message 7");
    const items = [...root.querySelectorAll<HTMLElement>('[data-testid="evidence-item"]')];
    expect(items.map((i) => i.dataset["role"])).toEqual(["materialised_final", "conflicting_final"]);
    expect(byTestId(items[1]!, "receipt-text").textContent).toContain("stat:DELIVRD");
    expect(byTestId(items[1]!, "receipt-stat").textContent).toBe("UNDELIV — it could not be delivered (a final failure)");
    expect(byTestId(items[1]!, "receipt-hex").tagName).toBe("DETAILS");
    expect(byTestId(items[0]!, "receipt-tlvs")).not.toBeNull();
  });

  it("does not guess a message for a receipt that matched none", async () => {
    await open(
      exceptionDetail({
        exception: exceptionSummary(6, { kind: "uncorrelated", message_id: null, destination: null, logical_event_id: 4 }),
        message: null,
        evidence: [{ role: "receipt", receipt: receipt(15, { message_id: null, correlation: "none" }), attempt: null }],
      }),
    );
    expect(byTestId(view!.container, "exception-no-message").textContent).toContain("none is guessed");
  });
});

describe("resolving", () => {
  it("needs a note: the button is disabled and says why until there is one", async () => {
    const h = await open(exceptionDetail({ exception: exceptionSummary(5, { kind: "unparseable", message_id: null }), message: null }));
    expect(submitButton().disabled).toBe(true);
    expect(blocked()).toBe("Write a note to explain the decision.");
    expect(submitButton().getAttribute("aria-describedby"), "the reason is tied to the button").toBe(
      byTestId(view!.container, "resolve-blocked").id,
    );
    await type(byTestId<HTMLTextAreaElement>(view!.container, "resolve-note"), "   ");
    expect(submitButton().disabled, "blanks are not a note").toBe(true);
    await type(byTestId<HTMLTextAreaElement>(view!.container, "resolve-note"), "Garbage from the test SMSC");
    expect(submitButton().disabled).toBe(false);
    expect(blocked()).toBeNull();
    await click(submitButton());
    await settle();
    expect(h.requests).toEqual([{ action: "dismiss", note: "Garbage from the test SMSC" }]);
  });

  it("choosing a state lists every final state, marks the ones the receipts reported, and sends the choice", async () => {
    const h = await open(exceptionDetail());
    const root = view!.container;
    expect(queryTestId(root, "resolve-states"), "no decision is chosen for the operator").toBeNull();
    await click(byTestId(root, "resolve-action-choose_state"));
    const states = [...byTestId(root, "resolve-states").querySelectorAll<HTMLInputElement>('input[type="radio"]')];
    expect(states.map((s) => s.value)).toEqual(["delivered", "undeliverable", "expired", "rejected", "deleted", "unknown", "skipped"]);
    const labels = states.map((s) => s.closest("label")?.textContent ?? "");
    expect(labels[0]).toContain("reported by receipt 11");
    expect(labels[1]).toContain("reported by receipt 13");
    expect(labels[2]).not.toContain("reported by");

    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "Called the customer: nothing arrived");
    expect(blocked()).toBe("Choose a state.");
    await click(states[1]!);
    expect(submitButton().disabled).toBe(false);
    await click(submitButton());
    await settle();
    expect(h.requests).toEqual([{ action: "choose_state", state: "undeliverable", note: "Called the customer: nothing arrived" }]);
  });

  it("attaching first shows the engine's refusal listing every mismatch, then needs the tick before resending with mismatches_seen", async () => {
    const h = await open(
      exceptionDetail({
        exception: exceptionSummary(6, { kind: "ambiguous", message_id: null, logical_event_id: 4 }),
        message: null,
        evidence: [
          { role: "receipt", receipt: receipt(15, { message_id: null, correlation: "ambiguous", source_addr: "33799999999" }), attempt: null },
          { role: "candidate", receipt: null, attempt: attempt(40, { message_id: 7 }) },
          { role: "candidate", receipt: null, attempt: attempt(41, { message_id: 8 }) },
        ],
      }),
    );
    const root = view!.container;
    expect(byTestId<HTMLInputElement>(root, "resolve-action-attach").checked, "nothing is chosen for the operator").toBe(false);
    await click(byTestId(root, "resolve-action-attach"));
    expect(byTestId(root, "resolve-candidates").textContent).toContain("Message 7");
    const compared: CompareCandidates[] = [];
    h.backend.compareCandidates = (id, asked) => {
      compared.push(asked);
      return Promise.resolve({
        exception_id: id,
        messages: [
          {
            message_id: 7,
            facts: [
              fact("connection", "agrees", "sandbox", "sandbox"),
              fact("destination", "differs", "33799999999", "+33612345607"),
              fact("text", "differs", "Your code", "Your order"),
              fact("time", "cannot_tell", null, "2026-11-29T12:00:00Z", "not_in_receipt"),
            ],
          },
        ],
      });
    };
    h.backend.resolve = (_id, request) => {
      h.requests.push(request);
      if (request.action === "attach" && !request.mismatches_seen) {
        return Promise.reject(
          new BackendError("mismatches_not_seen", "the receipt does not fit message 7 (destination, text); confirm after reviewing", {
            errors: [
              { field: "destination", code: "conflict", params: {}, message: "receipt 33799999999, message +33612345607" },
              { field: "text", code: "conflict", params: {}, message: "receipt “Your code”, message “Your order”" },
            ],
          }),
        );
      }
      return Promise.resolve();
    };

    await type(byTestId<HTMLInputElement>(root, "resolve-target"), "7");
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "The provider reused an id");
    await click(submitButton());
    await settle();
    expect(h.requests[0]).toEqual({ action: "attach", message_id: 7, mismatches_seen: false, note: "The provider reused an id" });

    const notice = byTestId(root, "attach-mismatches");
    expect(notice.textContent).toContain("This receipt does not fit message 7");
    expect(byTestId(notice, "mismatch-message").textContent).toContain("destination, text");
    expect([...byTestId(notice, "mismatch-list").querySelectorAll("li")].map((li) => li.dataset["field"])).toEqual([
      "destination",
      "text",
    ]);
    expect(compared, "the engine compares the receipt with the message named").toEqual([{ messages: [7] }]);
    const compare = byTestId(notice, "mismatch-compare");
    expect(compare.querySelector('[data-field="destination"]')?.textContent, "the receipt's and the message's facts side by side").toContain(
      "33799999999",
    );
    expect(compare.querySelector('[data-field="destination"]')?.textContent).toContain("+33612345607");
    expect(
      [...compare.querySelectorAll<HTMLElement>("tbody tr")].map((r) => `${r.dataset["field"]}:${r.className}`),
      "the rows the engine says differ are marked",
    ).toEqual(["connection:", "destination:mismatch-row", "text:mismatch-row", "time:"]);
    expect(submitButton().disabled, "the tick is required").toBe(true);
    expect(blocked()).toBe("Tick “I have reviewed every mismatch” to attach anyway.");

    await click(byTestId(root, "attach-reviewed"));
    expect(submitButton().disabled).toBe(false);
    expect(submitButton().textContent).toBe("Attach anyway");
    await click(submitButton());
    await settle();
    expect(h.requests[1]).toEqual({ action: "attach", message_id: 7, mismatches_seen: true, note: "The provider reused an id" });
  });

  it("a different message number needs its own review", async () => {
    const h = await open(
      exceptionDetail({
        exception: exceptionSummary(6, { kind: "uncorrelated", message_id: null, logical_event_id: 4 }),
        message: null,
        evidence: [{ role: "receipt", receipt: receipt(15, { message_id: null }), attempt: null }],
      }),
    );
    h.backend.compareCandidates = () => Promise.reject(new BackendError("not_found", "gone"));
    h.backend.resolve = (_id, request) => {
      h.requests.push(request);
      return Promise.reject(new BackendError("mismatches_not_seen", "the receipt does not fit message 7 (connection)"));
    };
    const root = view!.container;
    await click(byTestId(root, "resolve-action-attach"));
    await type(byTestId<HTMLInputElement>(root, "resolve-target"), "7");
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "note");
    await click(submitButton());
    await settle();
    await click(byTestId(root, "attach-reviewed"));
    await type(byTestId<HTMLInputElement>(root, "resolve-target"), "8");
    expect(queryTestId(root, "attach-mismatches")).toBeNull();
    await click(submitButton());
    await settle();
    expect(h.requests[1]).toMatchObject({ message_id: 8, mismatches_seen: false });
  });

  it("an unknown outcome offers resend (with its warning) or mark failed, and never dismiss", async () => {
    const h = await open(
      exceptionDetail({
        exception: exceptionSummary(9, { kind: "outcome_unknown" }),
        evidence: [{ role: "unanswered", receipt: null, attempt: attempt(50, { outcome: "timeout", provider_message_id: null }) }],
      }),
    );
    const root = view!.container;
    const actions = [...byTestId(root, "resolve-form").querySelectorAll<HTMLInputElement>('input[name="action"]')].map((i) => i.value);
    expect(actions).toEqual(["resend", "mark_failed"]);
    const checked = [...byTestId(root, "resolve-form").querySelectorAll<HTMLInputElement>('input[name="action"]:checked')];
    expect(checked, "sending again is never the choice the form opens with").toEqual([]);
    expect(submitButton().disabled).toBe(true);
    expect(blocked()).toBe("Choose a decision above: none is made for you.");
    expect(submitButton().textContent).toBe("Save the decision");
    await click(byTestId(root, "resolve-action-resend"));
    expect(byTestId(root, "resolve-consequence").textContent).toContain("deliver it twice");
    await click(byTestId(root, "resolve-action-mark_failed"));
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "Customer got it by e-mail instead");
    await click(submitButton());
    await settle();
    expect(h.requests).toEqual([{ action: "mark_failed", note: "Customer got it by e-mail instead" }]);
  });

  it("a message held because its number opted out: not sending it (cancelling) or sending it, in those words, and never dismiss", async () => {
    const held = exceptionDetail({
      exception: exceptionSummary(14, { kind: "opted_out", summary: "+33612345628 opted out (reply \"ARRET\") while this message waited to be sent" }),
      message: summary(7, { status: "held", state: "pending", rule: "no_report" }),
      evidence: [],
    });
    const h = await open(held);
    const root = view!.container;
    expect(root.querySelector("h2")?.textContent).toBe("Exception 14: Number opted out");
    expect(byTestId(root, "exception-explained").textContent).toContain("its number went on the opt-out list");
    expect(byTestId(root, "exception-message").textContent).toContain("Held for a person");
    const form = byTestId(root, "resolve-form");
    const choices = [...form.querySelectorAll<HTMLInputElement>('input[name="action"]')];
    expect(choices.map((i) => i.value)).toEqual(["mark_failed", "resend"]);
    expect(choices.map((i) => i.closest("label")?.querySelector(".choice-label")?.textContent)).toEqual(["Do not send it", "Send it"]);
    await click(byTestId(root, "resolve-action-mark_failed"));
    expect(byTestId(root, "resolve-consequence").textContent).toBe("The message is cancelled and never sent.");
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "They asked us to stop");
    expect(submitButton().textContent).toBe("Do not send: cancel it");

    // Sending it while the number is still on the list is refused, and says so.
    await click(byTestId(root, "resolve-action-resend"));
    expect(byTestId(root, "resolve-consequence").textContent).toContain("asked not to receive these messages");
    h.backend.resolve = (_id, request) => {
      h.requests.push(request);
      return Promise.reject(new BackendError("destination_opted_out", "+33612345628 is on the opt-out list"));
    };
    await click(submitButton());
    await settle();
    const error = byTestId(root, "resolve-error");
    expect(error.querySelector("h3")?.textContent).toBe("Not sent: the number is still on the opt-out list");
    expect(error.textContent).toContain("the person asked not to receive these messages");
    expect(h.requests.at(-1)).toEqual({ action: "resend", note: "They asked us to stop", confirm_duplicate: false, override_limits: false });
  });

  it("a one-time code held for a surge to its country: released or cancelled, in those words, and never dismissed", async () => {
    const held = exceptionDetail({
      exception: exceptionSummary(15, {
        kind: "unusual_volume",
        summary: "held: 42 one-time codes to NG in the last hour, where 1.5 an hour is usual",
        summary_code: "unusual_volume",
        summary_params: { country: "NG", count: "42", average: "1.5" },
      }),
      message: summary(7, { status: "held", state: "pending", rule: "no_report" }),
      evidence: [],
    });
    const h = await open(held);
    const root = view!.container;
    expect(root.querySelector("h2")?.textContent).toBe("Exception 15: Unusual surge of one-time codes");
    expect(byTestId(root, "exception-explained").textContent).toContain("which is how SMS pumping looks");
    const form = byTestId(root, "resolve-form");
    const choices = [...form.querySelectorAll<HTMLInputElement>('input[name="action"]')];
    expect(choices.map((i) => i.value)).toEqual(["mark_failed", "resend"]);
    expect(choices.map((i) => i.closest("label")?.querySelector(".choice-label")?.textContent)).toEqual(["Cancel", "Release"]);
    await click(byTestId(root, "resolve-action-resend"));
    expect(byTestId(root, "resolve-consequence").textContent).toContain("only if the surge is genuine");
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "Our sign-up campaign in Lagos");
    expect(submitButton().textContent).toBe("Release: send it");
    await click(byTestId(root, "resolve-action-mark_failed"));
    expect(submitButton().textContent).toBe("Cancel it");
    h.backend.resolve = (_id, request) => {
      h.requests.push(request);
      return Promise.resolve();
    };
    await click(submitButton());
    await settle();
    expect(h.requests).toEqual([{ action: "mark_failed", note: "Our sign-up campaign in Lagos" }]);
  });

  it("a link to one kind opens the queue narrowed to it", async () => {
    const backend = new FakeBackend();
    const asked: ExceptionFilter[] = [];
    backend.listExceptions = (filter) => {
      asked.push(filter);
      return Promise.resolve({ items: [], next_cursor: null } as unknown as ExceptionPage);
    };
    view = await render(<Exceptions backend={backend} kind="unusual_volume" />);
    await settle();
    expect(asked[0]).toMatchObject({ status: "open", kind: "unusual_volume" });
    expect(byTestId<HTMLSelectElement>(view.container, "exception-filter-kind").value).toBe("unusual_volume");
  });

  it("says a held message not sent was cancelled", async () => {
    const h = await open(
      exceptionDetail({ exception: exceptionSummary(14, { kind: "opted_out" }), message: summary(7, { status: "held" }), evidence: [] }),
    );
    const root = view!.container;
    await click(byTestId(root, "resolve-action-mark_failed"));
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "They asked us to stop");
    h.backend.resolve = (_id, request) => {
      h.requests.push(request);
      h.settleAs("cancel");
      return Promise.resolve();
    };
    await click(submitButton());
    await settle(300);
    expect(h.requests).toEqual([{ action: "mark_failed", note: "They asked us to stop" }]);
    expect(byTestId(byTestId(root, "resolution"), "resolution-what").textContent).toBe("Message cancelled: not sent");
  });

  it("after resolving, shows what was decided: resolution, note, who and when", async () => {
    const h = await open(exceptionDetail());
    const root = view!.container;
    await click(byTestId(root, "resolve-action-choose_state"));
    await click(root.querySelector<HTMLInputElement>('[data-testid="resolve-state"][value="delivered"]')!);
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "The first receipt is right");
    h.backend.resolve = (_id, request) => {
      h.requests.push(request);
      h.settleAs("state:delivered");
      return Promise.resolve();
    };
    await click(submitButton());
    await settle(300);
    expect(queryTestId(root, "resolve-form"), "a closed exception has no form").toBeNull();
    expect(byTestId(root, "resolve-done").textContent).toBe("Decision saved.");
    const resolution = byTestId(root, "resolution");
    expect(byTestId(resolution, "resolution-what").textContent).toBe(
      "State set: Delivered, by the operator’s decision (not a network report)",
    );
    expect(byTestId(resolution, "resolution-note").textContent).toContain("The first receipt is right");
    expect(byTestId(resolution, "resolution-by").textContent).toBe("operator");
    expect(byTestId(resolution, "resolution-at").querySelector("time")?.getAttribute("datetime")).toBe(
      new Date(T0 + 3_600_000).toISOString(),
    );
    expect(byTestId(root, "exception-status").textContent).toBe("Resolved");
  });

  it("shows plainly when someone else settled it first", async () => {
    const h = await open(exceptionDetail({ exception: exceptionSummary(5, { kind: "unparseable", message_id: null }), message: null }));
    h.backend.resolve = () => {
      h.settleAs("dismissed", "dismissed");
      return Promise.reject(new BackendError("not_open", "exception 5 is already dismissed"));
    };
    await type(byTestId<HTMLTextAreaElement>(view!.container, "resolve-note"), "x");
    await click(submitButton());
    await settle(300);
    expect(byTestId(view!.container, "resolution"), "what was decided instead is shown").not.toBeNull();
    expect(byTestId(view!.container, "resolve-stale").dataset["code"]).toBe("not_open");
    expect(queryTestId(view!.container, "resolve-done"), "it must not say the decision was saved").toBeNull();
  });
});

describe("the exception queue", () => {
  function queue(pages: Record<string, ExceptionPage>) {
    const backend = new FakeBackend();
    const filters: ExceptionFilter[] = [];
    backend.listExceptions = (filter) => {
      filters.push(filter);
      return Promise.resolve(pages[filter.cursor ?? ""] ?? { items: [], next_cursor: null });
    };
    return { backend, filters };
  }

  it("lists open items first, newest first, in plain words, with their age and message, and pages with Load more", async () => {
    const now = Date.now();
    const { backend, filters } = queue({
      "": {
        items: [
          exceptionSummary(12, { kind: "outcome_unknown", created_at_ms: now - 3 * 3_600_000 }),
          exceptionSummary(11, { kind: "uncorrelated", message_id: null, destination: null, created_at_ms: now - 2 * 86_400_000 }),
        ],
        next_cursor: "x1",
      },
      x1: { items: [exceptionSummary(10, { kind: "no_receipt" })], next_cursor: null },
    });
    view = await render(<Exceptions backend={backend} />);
    await settle();
    const root = view.container;
    expect(filters[0]).toEqual({ status: "open", kind: null, cursor: null, limit: 50 });
    const rows = [...root.querySelectorAll<HTMLElement>('[data-testid="exception-row"]')];
    expect(rows.map((r) => byTestId(r, "exception-kind").textContent)).toEqual(["Outcome unknown", "Receipt for no known message"]);
    expect(rows.map((r) => byTestId(r, "exception-age").textContent)).toEqual(["3 hours ago", "2 days ago"]);
    expect(byTestId(rows[0]!, "exception-message").textContent).toContain("Message 7");
    expect(queryTestId(rows[1]!, "exception-message")).toBeNull();

    await click(byTestId(root, "exceptions-more"));
    await settle();
    expect(filters.at(-1)).toEqual({ status: "open", kind: null, cursor: "x1", limit: 50 });
    expect(root.querySelectorAll('[data-testid="exception-row"]')).toHaveLength(3);
    expect(queryTestId(root, "exceptions-more")).toBeNull();
  });

  it("filters by status and kind", async () => {
    const { backend, filters } = queue({});
    view = await render(<Exceptions backend={backend} />);
    await settle();
    await choose(byTestId<HTMLSelectElement>(view.container, "exception-filter-status"), "resolved");
    await choose(byTestId<HTMLSelectElement>(view.container, "exception-filter-kind"), "conflicting_final");
    await settle();
    expect(filters.at(-1)).toEqual({ status: "resolved", kind: "conflicting_final", cursor: null, limit: 50 });
    await choose(byTestId<HTMLSelectElement>(view.container, "exception-filter-status"), "");
    await settle();
    expect(filters.at(-1)).toEqual({ status: null, kind: "conflicting_final", cursor: null, limit: 50 });
  });

  it("opens an item with Enter, shows a closed one's decision in the list, and links to its message", async () => {
    const { backend } = queue({
      "": {
        items: [
          exceptionSummary(5, {
            status: "resolved",
            resolution: "attached:7",
            resolution_note: "ok",
            resolved_by: "alice",
            resolved_at_ms: T0,
          }),
        ],
        next_cursor: null,
      },
    });
    backend.exception = () => Promise.resolve(exceptionDetail());
    const opened: number[] = [];
    view = await render(<Exceptions backend={backend} onOpenMessage={(id) => opened.push(id)} />);
    await settle();
    const root = view.container;
    expect(byTestId(root, "exception-status").textContent).toContain("Receipt attached to message 7");
    await click(byTestId(root, "exception-message"));
    expect(opened, "the linked message opens, not the exception").toEqual([7]);
    expect(queryTestId(root, "exception-detail")).toBeNull();

    const row = root.querySelector<HTMLElement>('[data-testid="exception-row"]')!;
    await act(async () => {
      row.dispatchEvent(new KeyboardEvent("keydown", { key: " ", bubbles: true }));
    });
    await settle();
    expect(byTestId(root, "exception-detail").dataset["id"]).toBe("5");
  });
});

describe("a receipt that matched nothing, beside tries whose outcome is unknown", () => {
  const candidateDetail = (): ExceptionDetail => {
    const r = receipt(40, { message_id_raw: "GHOST1", correlation: "none", message_id: null, logical_event_id: 9 });
    const a = attempt(77, { message_id: 12, outcome: "timeout", provider_message_id: null, provider_id_norm: null });
    return exceptionDetail({
      exception: exceptionSummary(6, { kind: "uncorrelated", message_id: null, logical_event_id: 9 }),
      message: null,
      evidence: [{ role: "receipt", receipt: r, attempt: null }],
      candidates: [
        {
          receipt: r,
          attempt: a,
          message: null,
          receipt_exception_id: 6,
          facts: [
            { field: "submit_time", receipt: "2026-11-29T12:00:00", attempt: "2026-11-29T12:00:07Z", agrees: true },
            { field: "text", receipt: "Your code is 4821", attempt: "Your order has ship", agrees: false },
          ],
        },
      ],
    });
  };

  it("shows each candidate with the facts that agree or differ, and attaches nothing by itself", async () => {
    const h = await open(candidateDetail());
    const root = view!.container;
    const c = byTestId(root, "candidate");
    expect(c.dataset["message"]).toBe("12");
    const rows = [...byTestId(c, "candidate-facts").querySelectorAll<HTMLElement>("tbody tr")];
    expect(rows.map((r) => [r.dataset["field"], r.dataset["agrees"]])).toEqual([
      ["submit_time", "true"],
      ["text", "false"],
    ]);
    expect(rows[1]!.textContent).toContain("Differs");
    expect(h.requests).toEqual([]);
    // The candidate's message is offered as the one to attach to; choosing stays the operator's.
    await click(byTestId(root, "resolve-action-attach"));
    const offered = [...byTestId(root, "resolve-candidates").querySelectorAll("button")].map((b) => b.textContent);
    expect(offered).toEqual(["Message 12"]);
  });
});

describe("resending a message the network had", () => {
  it("asks once more, saying it will arrive twice, then sends the confirmation", async () => {
    const detail = exceptionDetail({
      exception: exceptionSummary(8, { kind: "outcome_unknown", message_id: 7 }),
      evidence: [],
    });
    const h = holding(detail);
    h.backend.resolve = (_id, request) => {
      h.requests.push(request);
      return request.action === "resend" && !request.confirm_duplicate
        ? Promise.reject(new BackendError("confirmation_required", "a receipt for this message was received: sending it again may deliver it twice; confirm to go on"))
        : Promise.resolve();
    };
    view = await render(<ExceptionView backend={h.backend} id={8} onClose={() => {}} onOpenMessage={() => {}} />);
    await settle();
    const root = view!.container;
    await click(byTestId(root, "resolve-action-resend"));
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "the customer asked for it again");
    await click(submitButton());
    await settle();
    expect(byTestId(root, "resolve-duplicate-warning").textContent).toContain("a second time");
    expect(submitButton().textContent).toBe("Send again, knowing it may arrive twice");
    await click(submitButton());
    await settle();
    expect(h.requests.map((r) => (r.action === "resend" ? r.confirm_duplicate : null))).toEqual([false, true]);
  });
});

describe("resending past the kind's limits", () => {
  function refusingPastLimits() {
    const detail = exceptionDetail({
      exception: exceptionSummary(8, { kind: "outcome_unknown", message_id: 7 }),
      evidence: [],
    });
    const h = holding(detail);
    h.backend.resolve = (_id, request) => {
      h.requests.push(request);
      return request.action === "resend" && !request.override_limits
        ? Promise.reject(new BackendError("attempts_exhausted", "an otp message is tried at most 2 times; it was tried 2"))
        : Promise.resolve();
    };
    return h;
  }

  async function resend(me: Me) {
    const h = refusingPastLimits();
    view = await render(<ExceptionView backend={h.backend} id={8} onClose={() => {}} onOpenMessage={() => {}} />, ["en-US"], me);
    await settle();
    const root = view!.container;
    await click(byTestId(root, "resolve-action-resend"));
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "the code never arrived");
    await click(submitButton());
    await settle();
    return { h, root };
  }

  it("an admin is offered to send anyway, with the note, sent as override_limits", async () => {
    const { h, root } = await resend(person("admin"));
    const refusal = byTestId(root, "resolve-limits");
    expect(refusal.dataset["code"]).toBe("attempts_exhausted");
    expect(refusal.textContent).toContain("tried at most 2 times");
    expect(submitButton().disabled, "no plain resend once the limits said no").toBe(true);
    expect(blocked()).toBe("Sending it again was refused: see why above.");
    await click(byTestId(root, "resolve-limits-override"));
    expect(submitButton().textContent).toBe("Send anyway, overriding the limits");
    await click(submitButton());
    await settle();
    expect(h.requests.map((r) => (r.action === "resend" ? [r.override_limits, r.note] : null))).toEqual([
      [false, "the code never arrived"],
      [true, "the code never arrived"],
    ]);
  });

  it("an operator reads why and may decide otherwise (mark failed), but not override", async () => {
    const { root } = await resend(person("operator"));
    expect(byTestId(root, "resolve-limits").textContent).toContain("Only an admin may send it past these limits.");
    expect(queryTestId(root, "resolve-limits-override")).toBeNull();
    expect(submitButton().disabled).toBe(true);
    await click(byTestId(root, "resolve-action-mark_failed"));
    expect(submitButton().disabled, "another decision is still open to them").toBe(false);
  });
});


describe("the message picker of a receipt that matched nothing", () => {
  const ghost = () =>
    receipt(40, {
      message_id_raw: "5f2a",
      id_source: "text",
      correlation: "none",
      message_id: null,
      logical_event_id: 9,
      received_at_ms: T0 + 60_000,
      source_addr: "33612345624",
      raw_text: "id:5f2a sub:001 dlvrd:001 submit date:2611291200 done date:2611291201 stat:DELIVRD err:000 text:Your code is 4821",
    });
  const detail = (): ExceptionDetail =>
    exceptionDetail({
      exception: exceptionSummary(6, { kind: "uncorrelated", message_id: null, logical_event_id: 9 }),
      message: null,
      evidence: [{ role: "receipt", receipt: ghost(), attempt: null }],
    });
  const found = [
    summary(24, { destination: "+33612345624", preview: "Your code is 4821", body_chars: 17 }),
    summary(23, { destination: "+33612345624", preview: "Your parcel is here", body_chars: 19, created_at_ms: T0 - 3_600_000 }),
  ];

  /** The engine's comparison of the receipt with messages 24 and 23, as its types say. */
  const verdicts: Record<number, FactCheck[]> = {
    24: [
      fact("connection", "agrees", "sandbox", "sandbox"),
      fact("destination", "agrees", "33612345624", "+33612345624"),
      fact("text", "agrees", "Your code is 4821", "Your code is 4821"),
      { ...fact("time", "agrees", "2026-11-29T12:01:00", "2026-11-29T12:00:00Z"), receipt_ms: T0 + 60_000, message_ms: T0 },
    ],
    23: [
      fact("connection", "agrees", "sandbox", "sandbox"),
      fact("destination", "agrees", "33612345624", "+33612345624"),
      fact("text", "differs", "Your code is 4821", "Your parcel is here"),
      fact("time", "cannot_tell", "yesterday", "2026-11-29T11:00:00Z", "unreadable"),
    ],
  };

  async function openAs(me: Me, settingsFormat: string | null = null) {
    const h = holding(detail());
    const compared: { id: number; messages: number[] }[] = [];
    h.backend.compareCandidates = (id, asked) => {
      compared.push({ id, messages: asked.messages });
      const messages = asked.messages.flatMap((m) => (verdicts[m] === undefined ? [] : [{ message_id: m, facts: verdicts[m] }]));
      return Promise.resolve({ exception_id: id, messages });
    };
    const filters: MessageFilter[] = [];
    h.backend.listMessages = (filter) => {
      filters.push(filter);
      return Promise.resolve({ items: filter.q === "parcel" ? [found[1]!] : found, next_cursor: null, scan_limited: false });
    };
    h.backend.settings = () =>
      settingsFormat === null
        ? Promise.reject(new BackendError("forbidden", "admins only"))
        : Promise.resolve({ fields: [{ key: "receipts.receipt_id", value: settingsFormat }] } as unknown as SettingsView);
    view = await render(<ExceptionView backend={h.backend} id={6} onClose={() => {}} onOpenMessage={() => {}} />, ["en-US"], me);
    await settle();
    await click(byTestId(view.container, "resolve-action-attach"));
    await settle();
    return { ...h, filters, compared };
  }

  it("searches the receipt's number before it arrived, shows every mismatch of each message, and attaches the one picked", async () => {
    const h = await openAs(person("operator"));
    const root = view!.container;
    expect(h.filters[0]).toMatchObject({ destination: "33612345624", q: null, from_ms: T0 + 60_000 - 86_400_000, to_ms: T0 + 660_000 });
    const candidates = [...root.querySelectorAll<HTMLElement>('[data-testid="picker-candidate"]')];
    expect(candidates.map((c) => [c.dataset["id"], c.dataset["differs"]])).toEqual([
      ["24", "0"],
      ["23", "1"],
    ]);
    const shown = (c: HTMLElement) =>
      [...c.querySelectorAll<HTMLElement>("tbody tr")].map((r) => `${r.dataset["field"]}:${r.dataset["verdict"]}`);
    expect(h.compared[0], "the engine compares the receipt with the messages listed").toEqual({ id: 6, messages: [24, 23] });
    expect(shown(candidates[1]!)).toEqual(["connection:agrees", "destination:agrees", "text:differs", "time:cannot_tell"]);
    expect(candidates[1]!.textContent).toContain("Facts that differ: 1.");
    expect(candidates[1]!.querySelector('[data-field="time"]')?.textContent).toContain("The receipt’s value cannot be read.");
    expect(h.requests, "nothing is attached by searching").toEqual([]);

    await type(byTestId<HTMLInputElement>(root, "picker-text"), "parcel");
    await click(byTestId(root, "picker-search"));
    await settle();
    expect(h.filters.at(-1)?.q).toBe("parcel");
    expect(root.querySelectorAll('[data-testid="picker-candidate"]')).toHaveLength(1);
    await type(byTestId<HTMLInputElement>(root, "picker-text"), "");
    await click(byTestId(root, "picker-search"));
    await settle();

    await click(byTestId(byTestId(root, "picker-candidate"), "picker-pick"));
    expect(byTestId<HTMLInputElement>(root, "resolve-target").value, "picking fills the message number").toBe("24");
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "Same number and text");
    await click(submitButton());
    await settle();
    expect(h.requests).toEqual([{ action: "attach", message_id: 24, mismatches_seen: false, note: "Same number and text" }]);
  });

  it("says when the id looks hex where the connection expects decimal; without the settings, judges by shape and says so", async () => {
    await openAs(person("admin"), "decimal");
    const hint = byTestId(view!.container, "picker-id-hint");
    expect(hint.dataset["kind"]).toBe("hex_where_decimal");
    expect(hint.textContent).toContain("In decimal it would be 24362");
    await view!.unmount();
    view = undefined;
    await openAs(person("operator"));
    const shape = byTestId(view!.container, "picker-id-hint");
    expect(shape.dataset["kind"]).toBe("looks_hex");
    expect(shape.textContent).toContain("Judged by the id’s shape alone");
  });
});

describe("bulk decisions", () => {
  const items = [
    exceptionSummary(31, { kind: "uncorrelated", message_id: null }),
    exceptionSummary(32, { kind: "uncorrelated", message_id: null }),
    exceptionSummary(33, { kind: "uncorrelated", message_id: null }),
    exceptionSummary(30, { kind: "conflicting_final" }),
  ];

  async function listing(me: Me = person("operator")) {
    const backend = new FakeBackend();
    backend.listExceptions = () => Promise.resolve({ items, next_cursor: null });
    const resolved: [number, ResolveRequest][] = [];
    backend.resolve = (id, request) => {
      resolved.push([id, request]);
      return id === 32 ? Promise.reject(new BackendError("not_open", "exception 32 is already dismissed")) : Promise.resolve();
    };
    view = await render(<Exceptions backend={backend} />, ["en-US"], me);
    await settle();
    return { backend, resolved };
  }
  const boxes = () => [...view!.container.querySelectorAll<HTMLInputElement>('[data-testid="exception-select"]')];

  it("resolves the selected exceptions of one kind with one note, listing each one's outcome; the failed stay selected", async () => {
    const { resolved } = await listing();
    const root = view!.container;
    expect(queryTestId(root, "bulk")).toBeNull();
    expect(boxes().map((b) => b.getAttribute("aria-label"))).toEqual([
      "Select exception 31",
      "Select exception 32",
      "Select exception 33",
      "Select exception 30",
    ]);
    await click(byTestId(root, "exception-select-all"));
    expect(boxes().every((b) => b.checked), "select all takes every open exception shown").toBe(true);
    expect(byTestId(root, "bulk-kinds").textContent).toBe("Select exceptions of one kind to decide them together.");
    await click(boxes()[3]!);
    expect(byTestId(root, "bulk").querySelector("h3")?.textContent).toBe("3 exceptions selected");

    const submitBulk = () => byTestId<HTMLButtonElement>(root, "bulk-submit");
    expect(root.querySelectorAll('[data-testid="bulk-form"] input[name="bulk-action"]:checked'), "nothing chosen").toHaveLength(0);
    expect(submitBulk().disabled).toBe(true);
    expect(byTestId(root, "bulk-blocked").textContent).toBe("Choose a decision above: none is made for you.");
    await click(byTestId(root, "bulk-action-dismiss"));
    expect(byTestId(root, "bulk-blocked").textContent).toBe("Write a note to explain the decision.");
    await type(byTestId<HTMLTextAreaElement>(root, "bulk-note"), "Test receipts from the provider's maintenance");
    expect(submitBulk().textContent).toBe("Dismiss: 3 exceptions");
    await click(submitBulk());
    await settle(10);

    expect(resolved.map(([id]) => id)).toEqual([31, 32, 33]);
    expect(resolved[0]?.[1]).toEqual({ action: "dismiss", note: "Test receipts from the provider's maintenance" });
    expect(byTestId(root, "bulk-summary").textContent).toBe("2 of 3 decided; 1 not: they stay selected, see why below.");
    const results = [...root.querySelectorAll<HTMLElement>('[data-testid="bulk-result"]')];
    expect(results.map((r) => [r.dataset["id"], r.dataset["ok"]])).toEqual([
      ["31", "true"],
      ["32", "false"],
      ["33", "true"],
    ]);
    expect(results[1]?.textContent).toContain("Exception 32: not decided");
    expect(results[1]?.dataset["code"]).toBe("not_open");
    expect(boxes().filter((b) => b.checked).map((b) => b.closest("tr")?.dataset["id"])).toEqual(["32"]);
  });

  it("keeps the outcome in view when every one was decided", async () => {
    const { backend } = await listing();
    backend.resolve = () => Promise.resolve();
    const root = view!.container;
    await click(boxes()[0]!);
    await click(byTestId(root, "bulk-action-dismiss"));
    await type(byTestId<HTMLTextAreaElement>(root, "bulk-note"), "Duplicate");
    await click(byTestId(root, "bulk-submit"));
    await settle(10);
    expect(byTestId(root, "bulk-summary").textContent).toBe("All 1 decided.");
    expect(queryTestId(root, "bulk-form"), "nothing left selected to decide").toBeNull();
    await click(byTestId(root, "bulk-clear"));
    expect(queryTestId(root, "bulk")).toBeNull();
  });

  it("offers no selection to a person who may not decide", async () => {
    await listing(person("viewer"));
    expect(boxes()).toEqual([]);
    expect(queryTestId(view!.container, "exception-select-all")).toBeNull();
  });
});

describe("a conflict's decision beside its receipts", () => {
  /** The sections of the page in their order, by what they hold. */
  function order(root: HTMLElement): string[] {
    const marks = ["exception-evidence", "resolve-form", "resolution", "exception-message"];
    return [...root.querySelectorAll<HTMLElement>(marks.map((m) => `[data-testid="${m}"]`).join(","))].map(
      (e) => e.dataset["testid"] ?? "",
    );
  }

  it("puts the decision right after the two receipts, each receipt's stat first and the rest folded", async () => {
    await open(exceptionDetail());
    const root = view!.container;
    expect(order(root), "the form follows the receipts; the message comes after").toEqual([
      "exception-evidence",
      "resolve-form",
      "exception-message",
    ]);
    const evidence = byTestId(root, "exception-evidence");
    // Between the receipts' section and the form: only the (empty) place where "saved" is said.
    const between = evidence.closest("section")?.nextElementSibling as HTMLElement;
    expect(between.textContent).toBe("");
    expect(between.nextElementSibling?.querySelector('[data-testid="resolve-form"]'), "the decision follows the receipts").not.toBeNull();

    const cards = [...evidence.querySelectorAll<HTMLElement>('[data-testid="receipt-evidence"]')];
    expect(cards.map((c) => c.dataset["receiptId"])).toEqual(["11", "13"]);
    for (const card of cards) {
      const facts = byTestId(card, "receipt-facts");
      const first = facts.querySelector(".fact");
      expect(first?.querySelector("dt")?.textContent, "the status word leads").toBe("Status word (stat)");
      expect(first?.querySelector("dd")?.dataset["testid"]).toBe("receipt-stat");
      const more = byTestId<HTMLDetailsElement>(card, "receipt-more");
      expect(more.tagName).toBe("DETAILS");
      expect(more.open, "the rest is folded").toBe(false);
      expect(more.textContent, "esm_class and the parser version are in the fold").toContain("esm_class");
      expect(more.querySelector("summary")?.textContent).toBe("Every other field, the text and the bytes");
      expect(facts.textContent, "esm_class is not beside stat").not.toContain("esm_class");
      expect(facts.textContent).not.toContain("Parser");
    }
    expect(byTestId(cards[1]!, "receipt-stat").textContent).toContain("UNDELIV");
  });

  it("after resolving, the page says what was decided, not what to decide", async () => {
    const h = await open(exceptionDetail());
    const root = view!.container;
    expect(byTestId(root, "exception-explained").textContent).toContain("decide which is right");
    await click(byTestId(root, "resolve-action-choose_state"));
    await click(root.querySelector<HTMLInputElement>('[data-testid="resolve-state"][value="undeliverable"]')!);
    await type(byTestId<HTMLTextAreaElement>(root, "resolve-note"), "Phone was off all day");
    h.backend.resolve = (_id, request) => {
      h.requests.push(request);
      h.settleAs("state:undeliverable");
      return Promise.resolve();
    };
    await click(submitButton());
    await settle(300);
    expect(queryTestId(root, "exception-explained"), "no call to decide once decided").toBeNull();
    expect(byTestId(root, "exception-decided").textContent).toBe("Decided: State set: Undeliverable (operator’s decision)");
    expect(root.textContent).not.toMatch(/decide which is right/);
    expect(order(root)).toEqual(["exception-evidence", "resolution", "exception-message"]);
  });

  it("says the decision in French and Russian", async () => {
    const closed = exceptionDetail({
      exception: exceptionSummary(5, { status: "resolved", resolution: "dismissed", resolution_note: "ok", resolved_by: "marie", resolved_at_ms: T0 }),
    });
    const h = holding(closed);
    view = await render(<ExceptionView backend={h.backend} id={5} onClose={() => {}} onOpenMessage={() => {}} />, ["fr-FR"]);
    await settle();
    expect(byTestId(view.container, "exception-decided").textContent).toMatch(/^Décidé : /);
    await view.unmount();
    view = await render(<ExceptionView backend={h.backend} id={5} onClose={() => {}} onOpenMessage={() => {}} />, ["ru-RU"]);
    await settle();
    expect(byTestId(view.container, "exception-decided").textContent).toMatch(/^Решено: /);
  });
});
