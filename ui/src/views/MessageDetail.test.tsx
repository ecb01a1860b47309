// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { Me } from "../bindings/Me";
import type { MessageAction } from "../bindings/MessageAction";
import type { MessageDetail as Detail } from "../bindings/MessageDetail";
import { byTestId, click, queryTestId, render, settle, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { attempt, deliveredDetail, exceptionSummary, person, receipt, summary, T0 } from "../test/fixtures";
import type { Tombstone } from "../bindings/Tombstone";
import { createI18n } from "../i18n/i18n";
import { ShownNumber } from "./message/removed";
import { MessageDetail } from "./MessageDetail";
import { Messages } from "./Messages";

function serving(detail: Detail) {
  const backend = new FakeBackend();
  let current = detail;
  let loads = 0;
  backend.message = (id) => {
    loads += 1;
    return id === current.message.id ? Promise.resolve(current) : Promise.reject(new BackendError("not_found", `message ${id} does not exist`));
  };
  return {
    backend,
    loads: () => loads,
    set: (next: Detail) => {
      current = next;
    },
  };
}

async function show(detail: Detail, languages?: string[], me?: Me) {
  const s = serving(detail);
  view = await render(
    <MessageDetail backend={s.backend} id={detail.message.id} onClose={() => {}} onOpenException={() => {}} />,
    languages,
    me,
  );
  await settle();
  return s;
}

const text = (root: ParentNode, id: string): string => byTestId(root as HTMLElement, id).textContent ?? "";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  window.location.hash = "";
});

describe("message detail: what was sent", () => {
  it("shows destination, kind, creation time, client reference, the full text, encoding and parts", async () => {
    await show(deliveredDetail());
    const root = view!.container;
    expect(text(root, "detail-destination")).toContain("+33612345607");
    expect(text(root, "detail-destination"), "the number as given is kept beside the normalised one").toContain("+33 6 12 34 56 07");
    expect(text(root, "detail-kind")).toBe("Transactional");
    expect(byTestId(root, "detail-created").querySelector("time")?.getAttribute("datetime")).toBe(new Date(T0).toISOString());
    expect(text(root, "detail-client-ref")).toBe('"order-1042"');
    expect(text(root, "message-body"), "the whole body, line breaks included").toBe("Your order 1042 has shipped.\nTrack it online.");
    expect(text(root, "detail-encoding")).toBe("GSM 7-bit");
    expect(text(root, "detail-parts")).toBe("1");
    expect(text(root, "detail-route"), "the route that took it").toBe("default");
    expect(root.querySelector('[data-testid="detail-pinned"]'), "not kept on one connection: not shown").toBeNull();
  });
});

describe("message detail: content removed by retention or an erasure", () => {
  const removedAt = T0 + 86_400_000;
  /** A tombstone as the engine sends it (its id and time arrive as JSON numbers). */
  const tombstone = (rule: Tombstone["rule"], actor: string): Tombstone => ({
    id: 3 as unknown as bigint,
    at: removedAt as unknown as bigint,
    rule,
    actor,
    summary: null,
  });
  const hash = "h:3f2a0000000000000000000000000b1c";
  const removed = (over: Partial<Detail["message"]>): Detail => {
    const d = deliveredDetail();
    return { ...d, queue: { ...d.queue, status: "failed" }, message: { ...d.message, ...over } };
  };

  it("says when the text was removed and by which rule, in place of the text", async () => {
    await show(removed({}));
    expect(queryTestId(view!.container, "copy-to-new"), "a failed message is offered a copy while it has its content").not.toBeNull();
    await view?.unmount();
    await show(removed({ body: "", text_removed: tombstone("text_days", "retention") }));
    const root = view!.container;
    const at = createI18n(["en-US"]).formatDateTime(removedAt);
    expect(queryTestId(root, "message-body"), "no empty text shown as if it were one").toBeNull();
    expect(text(root, "message-text-removed")).toBe(`Text removed on ${at} — retention (text_days)`);
    expect(byTestId(root, "message-text-removed").dataset["at"]).toBe(new Date(removedAt).toISOString());
    expect(text(root, "detail-destination"), "the number is still there").toContain("+33612345607");
    expect(queryTestId(root, "copy-to-new"), "nothing to copy: the text is gone").toBeNull();
  });

  it("says a number was removed and kept as a keyed hash, rather than show the hash as a number", async () => {
    const detail = removed({
      destination: hash,
      destination_raw: hash,
      body: "",
      text_removed: tombstone("erasure", "Alice"),
      number_removed: tombstone("erasure", "Alice"),
    });
    await show(detail);
    const root = view!.container;
    const destination = byTestId(root, "detail-destination");
    expect(destination.querySelector(".phone"), "not shown as a phone number").toBeNull();
    expect(text(destination, "message-number-removed")).toContain("Number removed (kept as a keyed hash)");
    expect(text(destination, "message-number-removed")).toContain("— erased by Alice");
    expect(text(destination, "message-number-hash")).toBe(hash);
    expect(text(root, "message-text-removed")).toMatch(/^Text removed on .+ — erased by Alice$/);
    expect(queryTestId(root, "copy-to-new")).toBeNull();
  });

  it("speaks French and Russian", async () => {
    await show(removed({ body: "", text_removed: tombstone("text_days", "retention") }), ["fr-FR"]);
    expect(text(view!.container, "message-text-removed")).toMatch(/^Texte supprimé le .+ — durée de conservation \(text_days\)$/);
    await view?.unmount();
    await show(removed({ destination: hash, number_removed: tombstone("destination_days", "retention") }), ["ru-RU"]);
    expect(text(view!.container, "message-number-removed")).toContain("Номер удалён (хранится в виде ключевого хеша)");
  });

  it("says a one-time code is kept masked, and shows the masked text as it is", async () => {
    await show(removed({ kind: "otp", body: "Votre code : ••••••" }));
    const root = view!.container;
    expect(text(root, "message-body")).toBe("Votre code : ••••••");
    expect(text(root, "message-otp-masked")).toBe(
      "A one-time code is kept masked: the code itself was sealed in memory and is never shown.",
    );
  });

  it("a list row shows a removed number as removed, never its hash", async () => {
    const t = createI18n(["en-US"]);
    view = await render(<ShownNumber value={hash} testId="shown" />);
    expect(text(view.container, "shown")).toBe(t.t("message.numberRemoved.short"));
    expect(byTestId(view.container, "shown").getAttribute("title"), "the hash is there for whoever looks for it").toBe(hash);
    await view.unmount();
    view = await render(<ShownNumber value="+33612345607" testId="shown" />);
    expect(byTestId(view.container, "shown").className).toBe("phone");
  });
});

describe("message detail: three statements, never merged", () => {
  it("says what our queue did, apart from what the network reported", async () => {
    await show(deliveredDetail());
    const root = view!.container;
    const queue = byTestId(root, "statement-queue");
    expect(text(queue, "statement-queue-says")).toBe("Accepted by the provider — not proof of delivery.");
    expect(text(queue, "queue-provider-ids"), "the provider's id exactly as returned, trailing space included").toBe('"0A1b "');
    const network = byTestId(root, "statement-network");
    expect(text(network, "statement-network-state")).toBe("Reported delivered");
    expect(text(network, "statement-network-rule")).toBe(
      "The first final state the network reported; later receipts never replace it.",
    );
    expect(
      [...byTestId(network, "network-basis").querySelectorAll("li")].map((li) => li.dataset["receiptId"]),
      "the receipts behind the state are named",
    ).toEqual(["11", "12"]);
    expect(queryTestId(root, "statement-operator"), "no decision, no operator statement").toBeNull();
  });

  it("never says delivered without saying reported", async () => {
    await show(deliveredDetail());
    // Codes are quoted as received or as SMPP names them (message_state 2 is DELIVERED): not our words.
    const ours = view!.container.cloneNode(true) as HTMLElement;
    for (const code of ours.querySelectorAll("code")) code.remove();
    const all = ours.textContent ?? "";
    const bare = [...all.matchAll(/delivered/gi)].filter((m) => !/reported\s$/i.test(all.slice(Math.max(0, m.index - 9), m.index)));
    expect(bare.map((m) => all.slice(Math.max(0, m.index - 40), m.index + 20)), "every 'delivered' must read 'reported delivered'").toEqual([]);
    expect(all).toContain("Reported delivered");
  });

  it("shows an operator's decision as a third statement, with the network's own report kept apart", async () => {
    const base = deliveredDetail();
    await show({
      ...base,
      summary: { ...base.summary, state: "undeliverable", rule: "operator_decision" },
      state: { ...base.state, state: "undeliverable", rule: "operator_decision", reported_state: "delivered", decided_by_exception_id: 5 },
      operator_decision: {
        exception_id: 5,
        exception_kind: "conflicting_final",
        state: "undeliverable",
        resolution: "state:undeliverable",
        note: "Customer says nothing arrived",
        decided_by: "alice",
        decided_at_ms: T0 + 60_000,
      },
      exceptions: [exceptionSummary(5, { status: "resolved", resolution: "state:undeliverable", resolved_by: "alice", resolved_at_ms: T0 + 60_000 })],
    });
    const root = view!.container;
    expect(text(root, "statement-network-state"), "the network's report, not the decision").toBe("Reported delivered");
    expect(text(root, "statement-network-rule")).toContain("operator’s decision, below, takes precedence");
    const operator = byTestId(root, "statement-operator");
    expect(text(operator, "statement-operator-state")).toBe("Undeliverable (operator’s decision)");
    expect(text(operator, "decision-by")).toBe("alice");
    expect(text(operator, "decision-note")).toContain("Customer says nothing arrived");
    expect(text(root, "statement-queue-says"), "the queue still says only what the queue did").toBe(
      "Accepted by the provider — not proof of delivery.",
    );
  });

  it("says why a failed message failed, in the SMSC's words", async () => {
    const base = deliveredDetail();
    await show({
      ...base,
      queue: { ...base.queue, status: "failed", accepted_at_ms: null, provider_message_ids: [], last_error: "ESME_RINVDSTADR" },
      attempts: [
        attempt(21, {
          outcome: "permanent",
          command_status: 11,
          command_status_hex: "0x0000000B",
          command_status_name: "ESME_RINVDSTADR",
          command_status_meaning: "Invalid destination address",
          provider_message_id: null,
        }),
      ],
    });
    expect(text(view!.container, "statement-queue-says")).toBe("Failed: Invalid destination: the phone number was refused (ESME_RINVDSTADR)");
  });

  it("says an unknown outcome is never resent on its own", async () => {
    const base = deliveredDetail();
    await show({ ...base, queue: { ...base.queue, status: "outcome_unknown" } });
    expect(text(view!.container, "statement-queue-says")).toContain("never resent on its own");
  });
});

describe("message detail: flags", () => {
  it("shows every flag as a badge with one line saying what it means", async () => {
    const base = deliveredDetail();
    await show({
      ...base,
      summary: { ...base.summary, flags: ["repeat", "late", "conflict", "no_receipt", "mismatch", "id_disagree", "outcome_unknown"] },
    });
    const flags = [...view!.container.querySelectorAll<HTMLElement>('[data-testid="flag"]')];
    expect(flags.map((f) => f.dataset["flag"])).toEqual([
      "outcome_unknown",
      "conflict",
      "no_receipt",
      "mismatch",
      "id_disagree",
      "late",
      "repeat",
    ]);
    expect(flags.map((f) => f.querySelector(".badge")?.textContent)).toEqual([
      "Outcome unknown",
      "Conflict",
      "No receipt by deadline",
      "Mismatch",
      "Id disagreement",
      "Late",
      "Repeat",
    ]);
    for (const f of flags) {
      expect((f.textContent ?? "").length, `${f.dataset["flag"]} needs its explanation`).toBeGreaterThan(30);
    }
  });

  it("notes a late or repeated receipt apart from what needs a look", async () => {
    const base = deliveredDetail();
    await show({ ...base, summary: { ...base.summary, flags: ["repeat", "late", "conflict"] } });
    const listed = (section: string) =>
      [...byTestId(view!.container, section).querySelectorAll<HTMLElement>('[data-testid="flag"]')].map((f) => f.dataset["flag"]);
    expect(listed("flags")).toEqual(["conflict"]);
    expect(listed("flags-noted")).toEqual(["late", "repeat"]);
    expect(byTestId(view!.container, "flags-noted").querySelector("h3")?.textContent).toBe("Noted in the evidence");
  });

  it("puts “Decide…” beside each item with an open exception, above the statements, leading to that exception", async () => {
    const base = deliveredDetail();
    const s = serving({
      ...base,
      summary: { ...base.summary, flags: ["conflict", "mismatch", "late"] },
      exceptions: [
        exceptionSummary(5, { kind: "conflicting_final" }),
        exceptionSummary(4, { kind: "conflicting_final", status: "resolved" }),
        exceptionSummary(9, { kind: "opted_out" }),
      ],
    });
    const opened: number[] = [];
    view = await render(<MessageDetail backend={s.backend} id={base.message.id} onClose={() => {}} onOpenException={(id) => opened.push(id)} />);
    await settle();
    const root = view.container;
    const section = byTestId(root, "flags");
    const decide = [...section.querySelectorAll<HTMLElement>('[data-testid="flag-decide"]')];
    expect(decide.map((d) => d.dataset["exception"]), "open exceptions only: the conflict's and the opt-out's").toEqual(["5", "9"]);
    expect(decide[0]?.closest('[data-testid="flag"]')?.getAttribute("data-flag")).toBe("conflict");
    expect(decide[0]?.textContent).toBe("Decide…");
    expect(decide[0]?.getAttribute("aria-label")).toBe("Decide exception 5: Receipts disagree");
    expect(byTestId(section, "flag-exception").dataset["kind"], "an open exception no flag stands for is listed too").toBe("opted_out");
    expect(section.querySelector('[data-flag="mismatch"] [data-testid="flag-decide"]'), "nothing to decide about a mismatch").toBeNull();
    expect(byTestId(root, "flags-noted").querySelector('[data-testid="flag-decide"]')).toBeNull();
    const statements = byTestId(root, "statement-queue");
    expect(section.compareDocumentPosition(statements) & Node.DOCUMENT_POSITION_FOLLOWING, "near the top, before the statements").toBeTruthy();
    await click(decide[0]!);
    expect(opened).toEqual([5]);
  });

  it("shows no flag section when there is none", async () => {
    const base = deliveredDetail();
    await show({ ...base, summary: { ...base.summary, flags: [] } });
    expect(queryTestId(view!.container, "flags")).toBeNull();
  });
});

describe("message detail: timeline", () => {
  it("merges tries, answers, receipts and webhook notifications in time order", async () => {
    await show(deliveredDetail());
    const items = [...view!.container.querySelectorAll<HTMLElement>('[data-testid="timeline-item"]')];
    expect(items.map((i) => `${i.dataset["kind"]}:${i.dataset["ref"]}`)).toEqual([
      "created:7",
      "attempt:21",
      "attempt_result:21",
      "receipt:11",
      "webhook:31",
      "receipt:12",
    ]);
    const times = items.map((i) => Date.parse(i.querySelector("time")?.getAttribute("datetime") ?? ""));
    expect([...times].sort((a, b) => a - b), "chronological").toEqual(times);
  });

  it("shows each try with its status and the provider's id exactly as returned; session and sequence only in its evidence", async () => {
    await show(deliveredDetail());
    const root = view!.container;
    const tried = root.querySelector<HTMLElement>('[data-kind="attempt"]')!;
    expect(text(tried, "timeline-line")).toBe("Try 1 recorded, before it was sent.");
    for (const line of root.querySelectorAll<HTMLElement>('[data-testid="timeline-line"]')) {
      expect(line.textContent, "no PDU-level id in a timeline line").not.toMatch(/s-1|sequence|\b41\b/i);
    }
    expect(text(byTestId(tried, "attempt-evidence"), "attempt-session")).toBe("s-1");
    const answer = root.querySelector<HTMLElement>('[data-kind="attempt_result"]')!;
    expect(text(answer, "timeline-line")).toContain("accepted by the provider — not proof of delivery");
    expect(answer.querySelector(".exact")?.textContent).toBe('"0A1b "');
    const evidence = byTestId(answer, "attempt-evidence");
    expect(text(evidence, "attempt-command-status")).toContain("0x00000000");
    expect(text(evidence, "attempt-command-status")).toContain("ESME_ROK");
    expect(text(evidence, "attempt-session")).toBe("s-1");
    expect(text(evidence, "attempt-sequence")).toBe("41");
  });

  it("shows each receipt exactly as received: text, hex on demand, TLVs, and whether it was a repeat", async () => {
    await show(deliveredDetail());
    const root = view!.container;
    const [first, second] = [...root.querySelectorAll<HTMLElement>('[data-kind="receipt"]')];
    const evidence = byTestId(first!, "receipt-evidence");
    expect(text(evidence, "receipt-text")).toContain("stat:DELIVRD err:000");
    const hex = byTestId<HTMLDetailsElement>(evidence, "receipt-hex");
    expect(hex.tagName, "the bytes are behind a disclosure").toBe("DETAILS");
    expect(hex.open).toBe(false);
    expect(text(hex, "receipt-raw-hex")).toBe("69 64 3a 30 41 31");
    expect(text(evidence, "receipt-stat")).toBe("DELIVRD — reported delivered to the phone by the network");
    expect(text(evidence, "receipt-err")).toBe("000 — no error");
    expect(text(first!, "timeline-receipt-codes"), "the line explains err too").toBe(" (DELIVRD, no error)");
    expect(text(evidence, "receipt-done")).toContain("2611291201");
    expect(byTestId(evidence, "receipt-tlvs").textContent).toContain("0x001e");
    expect(byTestId(evidence, "receipt-tlvs").textContent, "a C-string TLV is also shown as text").toContain("0A1b");
    expect(queryTestId(evidence, "receipt-repeat")).toBeNull();
    expect(queryTestId(byTestId(second!, "receipt-evidence"), "receipt-repeat")?.textContent).toBe("Repeat");
    expect(byTestId(first!, "timeline-evidence").tagName, "each entry's evidence is on demand").toBe("DETAILS");
  });

  it("says in the line whose code err is, or that 000 is no error", async () => {
    const base = deliveredDetail();
    const failed = receipt(11, { stat: "UNDELIV", stat_raw: "UNDELIV", err: "001", reported_state: "undeliverable" });
    await show({ ...base, receipts: [failed, ...base.receipts.slice(1)] });
    const item = view!.container.querySelector<HTMLElement>('[data-kind="receipt"][data-ref="11"]')!;
    expect(text(item, "timeline-receipt-codes")).toBe(" (UNDELIV, provider’s error code 001)");
  });

  it("marks an intermediate report that came after a final one as late", async () => {
    const base = deliveredDetail();
    const late = receipt(14, { kind: "intermediate", stat: "ENROUTE", stat_raw: "ENROUTE", reported_state: "enroute", received_at_ms: T0 + 7_000 });
    await show({
      ...base,
      receipts: [...base.receipts, late],
      state: { ...base.state, flags: { ...base.state.flags, late: true } },
      timeline: [...base.timeline, { at_ms: T0 + 7_000, kind: "receipt", ref_id: 14, summary: "Intermediate report ENROUTE.", part: null }],
    });
    const item = view!.container.querySelector<HTMLElement>('[data-kind="receipt"][data-ref="14"]')!;
    expect(queryTestId(item, "receipt-late")?.textContent).toBe("Late");
    const first = view!.container.querySelector<HTMLElement>('[data-kind="receipt"][data-ref="11"]')!;
    expect(queryTestId(first, "receipt-late")).toBeNull();
  });
});

describe("message detail: actions", () => {
  it("retry: when the engine asks for confirmation, warns that it may arrive twice, and resends with confirm_duplicate after a note", async () => {
    const s = await show(deliveredDetail());
    const calls: MessageAction[] = [];
    s.backend.retry = (_id, action) => {
      calls.push(action);
      return action.confirm_duplicate
        ? Promise.resolve()
        : Promise.reject(new BackendError("confirmation_required", "the last try of this message was accepted: sending it again may deliver it twice; confirm to go on"));
    };
    const root = view!.container;
    await click(byTestId(root, "retry-open"));
    expect(queryTestId(root, "retry-duplicate-warning")).toBeNull();
    await click(byTestId(root, "retry-submit"));
    await settle();
    expect(calls).toEqual([{ note: "", confirm_duplicate: false, override_limits: false }]);

    const warning = byTestId(root, "retry-duplicate-warning");
    expect(warning.textContent).toContain("This message may arrive twice");
    expect(warning.getAttribute("role")).toBe("alert");
    const confirm = byTestId<HTMLButtonElement>(root, "retry-confirm");
    expect(confirm.disabled, "confirming needs a note").toBe(true);
    expect(text(root, "retry-blocked")).toBe("Write a note first: it is kept with the decision.");

    await type(byTestId<HTMLTextAreaElement>(root, "retry-note"), "  Customer asked again  ");
    expect(confirm.disabled).toBe(false);
    await click(confirm);
    await settle();
    expect(calls[1]).toEqual({ note: "Customer asked again", confirm_duplicate: true, override_limits: false });
    expect(text(root, "action-done")).toBe("Put back in the queue: it will be sent again.");
    expect(s.loads(), "the detail reloads after the action").toBeGreaterThanOrEqual(2);
  });

  it("retry: any other refusal is shown plainly, with its code", async () => {
    const s = await show(deliveredDetail());
    s.backend.retry = () => Promise.reject(new BackendError("not_allowed", "message 7 is queued: it cannot be retried"));
    const root = view!.container;
    await click(byTestId(root, "retry-open"));
    await click(byTestId(root, "retry-submit"));
    await settle();
    const error = byTestId(root, "retry-error");
    expect(error.dataset["code"]).toBe("not_allowed");
    expect(error.textContent).toContain("this cannot be done in its current state");
    expect(queryTestId(root, "retry-duplicate-warning")).toBeNull();
    expect(queryTestId(root, "retry-limits")).toBeNull();
  });

  it("retry past the kind's limits: an admin is offered to send anyway, which needs a note and sends override_limits", async () => {
    const s = await show(deliveredDetail(), undefined, person("admin"));
    const calls: MessageAction[] = [];
    s.backend.retry = (_id, action) => {
      calls.push(action);
      return action.override_limits
        ? Promise.resolve()
        : Promise.reject(new BackendError("attempts_exhausted", "an otp message is tried at most 2 times; it was tried 2"));
    };
    const root = view!.container;
    await click(byTestId(root, "retry-open"));
    await click(byTestId(root, "retry-submit"));
    await settle();
    const refusal = byTestId(root, "retry-limits");
    expect(refusal.dataset["code"]).toBe("attempts_exhausted");
    expect(refusal.getAttribute("role")).toBe("alert");
    expect(refusal.textContent).toContain("It has had all the tries its kind allows");
    expect(refusal.textContent, "the engine's own words are shown").toContain("tried at most 2 times");
    expect(queryTestId(root, "retry-error"), "a refusal by the limits is explained, not shown as a failure").toBeNull();
    expect(queryTestId(root, "retry-submit"), "no plain retry once the limits said no").toBeNull();

    await click(byTestId(root, "retry-limits-override"));
    const send = byTestId<HTMLButtonElement>(root, "retry-override-submit");
    expect(send.textContent).toBe("Send anyway, overriding the limits");
    expect(send.disabled, "overriding the limits needs a note").toBe(true);
    expect(byTestId<HTMLTextAreaElement>(root, "retry-note").required).toBe(true);
    await type(byTestId<HTMLTextAreaElement>(root, "retry-note"), "The customer is on the phone waiting for the code");
    await click(send);
    await settle();
    expect(calls[1]).toEqual({
      note: "The customer is on the phone waiting for the code",
      confirm_duplicate: false,
      override_limits: true,
    });
    expect(text(root, "action-done")).toBe("Put back in the queue: it will be sent again.");
  });

  it("retry past the kind's limits: an operator reads why, and is not offered to override", async () => {
    const s = await show(deliveredDetail(), undefined, person("operator"));
    s.backend.retry = () => Promise.reject(new BackendError("too_old", "an otp message is sent within 5 minutes; this one is 12 minutes old"));
    const root = view!.container;
    await click(byTestId(root, "retry-open"));
    await click(byTestId(root, "retry-submit"));
    await settle();
    const refusal = byTestId(root, "retry-limits");
    expect(refusal.dataset["code"]).toBe("too_old");
    expect(refusal.textContent).toContain("It is too old to send");
    expect(refusal.textContent).toContain("12 minutes old");
    expect(text(root, "limits-admin-only")).toBe("Only an admin may send it past these limits.");
    expect(queryTestId(root, "retry-limits-override")).toBeNull();
    expect(queryTestId(root, "retry-override-submit")).toBeNull();
  });

  it("cancel is offered only while the message is queued, and needs a note", async () => {
    await show(deliveredDetail());
    expect(queryTestId(view!.container, "cancel-open"), "an accepted message cannot be cancelled").toBeNull();
    await view!.unmount();

    const base = deliveredDetail();
    const s = await show({ ...base, queue: { ...base.queue, status: "queued", accepted_at_ms: null, provider_message_ids: [] } });
    const calls: MessageAction[] = [];
    s.backend.cancel = (_id, action) => {
      calls.push(action);
      return Promise.resolve();
    };
    const root = view!.container;
    expect(queryTestId(root, "retry-open"), "a queued message is not retried").toBeNull();
    await click(byTestId(root, "cancel-open"));
    const submit = byTestId<HTMLButtonElement>(root, "cancel-submit");
    expect(submit.disabled).toBe(true);
    expect(text(root, "cancel-blocked")).toBe("Write a note first: it is kept with the decision.");
    await type(byTestId<HTMLTextAreaElement>(root, "cancel-note"), "Sent by mistake");
    await click(submit);
    await settle();
    expect(calls).toEqual([{ note: "Sent by mistake", confirm_duplicate: false, override_limits: false }]);
  });

  it("a message held because its number opted out says why, links its exception, may be cancelled, and a send is refused in plain words", async () => {
    const base = deliveredDetail();
    const held: Detail = {
      ...base,
      summary: summary(7, { status: "held", state: "pending", rule: "no_report" }),
      queue: {
        ...base.queue,
        status: "held",
        attempts: 0,
        accepted_at_ms: null,
        provider_message_ids: [],
        last_error: 'not sent: +33612345607 is on the opt-out list (reply "STOP")',
      },
      state: { ...base.state, state: "pending", rule: "no_report", reported_state: null, supporting_receipt_ids: [], supporting_event_ids: [] },
      attempts: [],
      receipts: [],
      webhooks: [],
      exceptions: [exceptionSummary(14, { kind: "opted_out", message_id: 7 })],
      timeline: [
        { at_ms: T0, kind: "created", ref_id: 7, summary: "Message received via compose.", part: null },
        { at_ms: T0 + 5_000, kind: "exception_opened", ref_id: 14, summary: "Exception opened: opted_out.", part: null },
      ],
    };
    const s = await show(held);
    const root = view!.container;
    expect(byTestId(root, "statement-queue").dataset["status"]).toBe("held");
    expect(text(root, "statement-queue")).toContain("Held for a person");
    expect(text(root, "statement-queue-says")).toContain("its number went on the opt-out list after it was queued");
    expect(text(root, "timeline")).toContain("Number opted out");
    expect(queryTestId(root, "cancel-open"), "a held message was never sent: it can be cancelled").not.toBeNull();

    s.backend.retry = () => Promise.reject(new BackendError("destination_opted_out", "+33612345607 is on the opt-out list"));
    await click(byTestId(root, "retry-open"));
    expect(text(root, "retry-form")).toContain("sent only once the number is off the list");
    await click(byTestId(root, "retry-submit"));
    await settle();
    const error = byTestId(root, "retry-error");
    expect(error.querySelector("h3")?.textContent, "the title does not repeat the reason the text gives").toBe("The message was not sent again");
    expect(error.textContent).toContain("the person asked not to receive these messages");
  });

  it("offers a viewer neither retry nor cancel", async () => {
    const base = deliveredDetail();
    await show({ ...base, queue: { ...base.queue, status: "queued", accepted_at_ms: null, provider_message_ids: [] } }, undefined, person("viewer"));
    expect(queryTestId(view!.container, "message-actions"), "a viewer changes nothing").toBeNull();
    expect(queryTestId(view!.container, "retry-open")).toBeNull();
    expect(queryTestId(view!.container, "cancel-open")).toBeNull();
  });

  it("offers nothing while the message is being sent", async () => {
    const base = deliveredDetail();
    await show({ ...base, queue: { ...base.queue, status: "sending" } });
    expect(queryTestId(view!.container, "retry-open")).toBeNull();
    expect(queryTestId(view!.container, "cancel-open")).toBeNull();
  });
});

describe("message detail: live", () => {
  it("reloads on changes to this message (debounced), and not on changes to others", async () => {
    const s = await show(deliveredDetail());
    expect(s.loads()).toBe(1);
    await settle(() => {
      s.backend.emit({ entity: "queue", id: 7 });
      s.backend.emit({ entity: "projection", id: 7 });
      s.backend.emit({ entity: "receipt", id: 99 });
    }, 400);
    expect(s.loads(), "a burst of changes costs one reload").toBe(2);
    await settle(() => {
      s.backend.emit({ entity: "queue", id: 8 });
      s.backend.emit({ entity: "attempt", id: 500 });
      s.backend.emit({ entity: "audit", id: 3 });
    }, 400);
    expect(s.loads(), "changes to other messages do not reload it").toBe(2);
    await settle(() => s.backend.emit({ entity: "attempt", id: 21 }), 400);
    expect(s.loads(), "an answer to one of its tries does").toBe(3);
  });

  it("says plainly when the message does not exist", async () => {
    const s = serving(deliveredDetail());
    view = await render(<MessageDetail backend={s.backend} id={99} onClose={() => {}} onOpenException={() => {}} />);
    await settle();
    expect(byTestId(view.container, "detail-error").dataset["code"]).toBe("not_found");
  });
});

describe("opening a message from the list", () => {
  function listing(detail: Detail) {
    const s = serving(detail);
    s.backend.listMessages = () => Promise.resolve({ items: [summary(8), detail.summary], next_cursor: null, scan_limited: false });
    return s;
  }

  it("opens on click or Enter, and Escape returns to the list with the row focused", async () => {
    const s = listing(deliveredDetail());
    view = await render(<Messages backend={s.backend} />);
    await settle();
    const root = view.container;
    const row = root.querySelector<HTMLElement>('[data-testid="message-row"][data-id="7"]')!;
    expect(row.tabIndex, "rows are in the tab order").toBe(0);
    await act(async () => {
      row.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    });
    await settle();
    expect(byTestId(root, "message-detail").dataset["id"]).toBe("7");
    expect(document.activeElement?.tagName, "the detail's heading takes focus").toBe("H2");

    await act(async () => {
      document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    });
    await settle();
    expect(queryTestId(root, "message-detail")).toBeNull();
    expect((document.activeElement as HTMLElement | null)?.dataset["id"], "focus returns to the row").toBe("7");

    await click(root.querySelector<HTMLElement>('[data-testid="message-row"][data-id="7"]')!);
    await settle();
    expect(byTestId(root, "message-detail").dataset["id"]).toBe("7");
    await click(byTestId(root, "detail-back"));
    expect(queryTestId(root, "message-detail")).toBeNull();
  });

  it("Escape while typing a note does not close the detail", async () => {
    const s = listing(deliveredDetail());
    view = await render(<Messages backend={s.backend} />);
    await settle();
    const root = view.container;
    await click(root.querySelector<HTMLElement>('[data-testid="message-row"][data-id="7"]')!);
    await settle();
    await click(byTestId(root, "retry-open"));
    const note = byTestId<HTMLTextAreaElement>(root, "retry-note");
    await act(async () => {
      note.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    });
    expect(queryTestId(root, "message-detail")).not.toBeNull();
  });
});

/** Message 7 sent in three parts: each accepted; part 1 reported delivered, part 2 undeliverable. */
function threeParts(): Detail {
  const base = deliveredDetail();
  const tries = [1, 2, 3].map((p) => attempt(20 + p, { segment_no: p, provider_message_id: `P${p}`, provider_id_norm: `t:P${p}` }));
  const r1 = receipt(11, { message_parts: [1] });
  const r2 = receipt(12, { message_parts: [2], stat: "UNDELIV", stat_raw: "UNDELIV", reported_state: "undeliverable", received_at_ms: T0 + 6_000 });
  const entry = (at_ms: number, kind: Detail["timeline"][number]["kind"], ref_id: number, part: number | null) => ({
    at_ms,
    kind,
    ref_id,
    summary: `${kind} ${ref_id}`,
    part,
  });
  return {
    ...base,
    message: { ...base.message, segments: 3 },
    summary: { ...base.summary, state: "partially_delivered", rule: "parts_pending" },
    attempts: tries,
    receipts: [r1, r2],
    state: {
      ...base.state,
      state: "partially_delivered",
      rule: "parts_pending",
      reported_state: "partially_delivered",
      supporting_receipt_ids: [11, 12],
      parts: [
        { part: 1, state: "delivered", rule: "first_final", supporting_receipt_ids: [11], conflicting_receipt_ids: [], conflict: false, late: false },
        { part: 2, state: "undeliverable", rule: "first_final", supporting_receipt_ids: [12], conflicting_receipt_ids: [], conflict: false, late: false },
        { part: 3, state: "pending", rule: "no_report", supporting_receipt_ids: [], conflicting_receipt_ids: [], conflict: false, late: false },
      ],
    },
    timeline: [
      entry(T0, "created", 7, null),
      ...tries.flatMap((a) => [entry(T0 + 1_000, "attempt", a.id, a.segment_no), entry(T0 + 1_200, "attempt_result", a.id, a.segment_no)]),
      entry(T0 + 5_000, "receipt", 11, 1),
      entry(T0 + 6_000, "receipt", 12, 2),
    ],
  };
}

describe("message detail: a message sent in parts", () => {
  it("says where each part stands, and that one part delivered is the message delivered in part", async () => {
    await show(threeParts());
    const root = view!.container;
    expect(text(root, "statement-network-state")).toBe("Reported delivered in part");
    const parts = [...byTestId(root, "network-parts").querySelectorAll<HTMLElement>("li")];
    expect(parts.map((p) => [p.dataset["part"], p.dataset["state"]])).toEqual([
      ["1", "delivered"],
      ["2", "undeliverable"],
      ["3", "pending"],
    ]);
    expect(parts[2]!.textContent).toContain("Nothing reported yet");
  });

  it("groups the timeline: the whole message first, then each part's tries and receipts", async () => {
    await show(threeParts());
    const groups = [...view!.container.querySelectorAll<HTMLElement>('[data-testid="timeline-group"]')];
    expect(groups.map((g) => g.dataset["part"])).toEqual(["", "1", "2", "3"]);
    const refs = (g: HTMLElement) => [...g.querySelectorAll<HTMLElement>('[data-testid="timeline-item"]')].map((i) => `${i.dataset["kind"]}:${i.dataset["ref"]}`);
    expect(refs(groups[0]!), "what concerns the whole message (its webhook notification too)").toEqual(["created:7", "webhook:31"]);
    expect(refs(groups[1]!)).toEqual(["attempt:21", "attempt_result:21", "receipt:11"]);
    expect(refs(groups[2]!)).toEqual(["attempt:22", "attempt_result:22", "receipt:12"]);
    expect(refs(groups[3]!)).toEqual(["attempt:23", "attempt_result:23"]);
    expect(groups[1]!.querySelector("h4")?.textContent).toBe("Part 1 of 3");
  });

  it("marks a receipt whose status nobody can read, which says nothing of the state", async () => {
    const base = deliveredDetail();
    const unread = receipt(14, { stat: "UNKNOWN", stat_raw: "??", status_unreadable: true, reported_state: null, received_at_ms: T0 + 7_000 });
    await show({
      ...base,
      receipts: [...base.receipts, unread],
      timeline: [...base.timeline, { at_ms: T0 + 7_000, kind: "receipt", ref_id: 14, summary: "Receipt ??.", part: null }],
    });
    const item = view!.container.querySelector<HTMLElement>('[data-kind="receipt"][data-ref="14"]')!;
    expect(queryTestId(item, "receipt-unreadable")?.textContent).toBe("Status unreadable");
    expect(item.textContent).not.toContain("Reported unknown");
  });
});

describe("message detail: smart encoding and the cost", () => {
  it("shows the text as sent and as handed in when smart encoding replaced characters, and its estimated cost", async () => {
    const detail = deliveredDetail({
      text_as_given: "Votre rendez-vous de l’après-midi « demain »",
      replaced_characters: "’«»",
      cost_micros: 50_000,
      currency: "EUR",
    });
    const s = serving({ ...detail, message: { ...detail.message, body: "Votre rendez-vous de l'après-midi \"demain\"" } });
    view = await render(<MessageDetail backend={s.backend} id={7} onClose={() => {}} onOpenException={() => {}} />);
    await settle();
    await settle();
    const root = view.container;
    expect(text(root, "message-body")).toBe("Votre rendez-vous de l'après-midi \"demain\"");
    expect(text(root, "message-text-as-given")).toBe("Votre rendez-vous de l’après-midi « demain »");
    expect(text(root, "message-smart")).toBe("Smart encoding replaced ’ « » so that the text costs fewer parts.");
    const headings = [...root.querySelectorAll(".body-heading")].map((h) => h.textContent);
    expect(headings).toEqual(["Text as sent", "Text as handed in"]);
    expect(text(root, "detail-cost")).toBe("€0.05");
  });

  it("shows one text, and no cost, when nothing was replaced and no price covered it", async () => {
    await show(deliveredDetail());
    const root = view!.container;
    expect(queryTestId(root, "message-text-as-given")).toBeNull();
    expect(queryTestId(root, "detail-cost")).toBeNull();
    expect([...root.querySelectorAll(".body-heading")].map((h) => h.textContent)).toEqual(["Text"]);
  });
});
