// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { Me } from "../../bindings/Me";
import type { MessageDetail as Detail } from "../../bindings/MessageDetail";
import { createI18n } from "../../i18n/i18n";
import { queueReasonWords } from "../../i18n/reasons/words";
import { byTestId, queryTestId, render, settle, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { attempt, deliveredDetail, person, receipt, summary, T0 } from "../../test/fixtures";
import { Compose } from "../Compose";
import { MessageDetail } from "../MessageDetail";
import { readCopy } from "./copy";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  window.location.hash = "";
});

/** Message 7, refused for good by the SMSC on its one try: never accepted, no provider id. */
function refusedDetail(over: Partial<Detail["queue"]> = {}): Detail {
  const base = deliveredDetail();
  return {
    ...base,
    summary: summary(7, { status: "failed", state: "pending", rule: "no_report", attempts: 1 }),
    message: { ...base.message, kind: "otp", body: "Your code is 5521", destination: "+33612345613", destination_raw: "06 12 34 56 13" },
    queue: {
      ...base.queue,
      status: "failed",
      accepted_at_ms: null,
      provider_message_ids: [],
      last_error: "submit refused for good: ESME_RINVDSTADR",
      ...over,
    },
    state: { ...base.state, state: "pending", rule: "no_report", reported_state: null, supporting_receipt_ids: [], supporting_event_ids: [] },
    attempts: [
      attempt(21, {
        outcome: "permanent",
        command_status: 11,
        command_status_hex: "0x0000000B",
        command_status_name: "ESME_RINVDSTADR",
        command_status_meaning: "Invalid destination address",
        provider_message_id: null,
        provider_id_norm: null,
      }),
    ],
    receipts: [],
    webhooks: [],
  };
}

async function show(detail: Detail, languages?: string[], me?: Me) {
  const backend = new FakeBackend();
  backend.message = () => Promise.resolve(detail);
  view = await render(<MessageDetail backend={backend} id={7} onClose={() => {}} onOpenException={() => {}} />, languages, me);
  await settle();
  return view.container;
}

const text = (root: HTMLElement, id: string): string => byTestId(root, id).textContent ?? "";

describe("the message page answers at the top", () => {
  it("holds the state and its reason in the heading, before anything else about the message", async () => {
    const root = await show(refusedDetail());
    const heading = byTestId(root, "detail-heading");
    expect(heading.tagName).toBe("H2");
    expect(heading.textContent).toBe("Message 7 — Failed: Invalid destination: the phone number was refused (ESME_RINVDSTADR)");
    const section = byTestId(root, "message-detail");
    expect(section.querySelector("h2, h3"), "the answer is the page's first heading").toBe(heading);
    expect(
      heading.compareDocumentPosition(byTestId(root, "message-header")) & Node.DOCUMENT_POSITION_FOLLOWING,
      "what was sent comes after the answer",
    ).toBeTruthy();
  });

  it("words a coded queue reason with the reasons' words", async () => {
    const reason = { code: "refused_permanent" as const, params: { status: "ESME_RINVDSTADR" } };
    const detail = refusedDetail({ reason });
    const root = await show(detail);
    const { t } = createI18n(["en-US"]);
    expect(text(root, "detail-heading")).toBe(`Message 7 — Failed: ${queueReasonWords(detail.queue, t) ?? "?"}`);
  });

  it("gives a network's failure by the receipt that reported it, and nothing more when all is well", async () => {
    const rejected = deliveredDetail({
      state: { ...deliveredDetail().state, state: "rejected", reported_state: "rejected", supporting_receipt_ids: [11] },
      receipts: [receipt(11, { stat: "REJECTD", stat_raw: "REJECTD", err: "012", reported_state: "rejected" })],
    });
    let root = await show(rejected);
    expect(text(root, "detail-heading")).toBe("Message 7 — Reported rejected: receipt REJECTD, error 012");
    await view!.unmount();
    root = await show(deliveredDetail());
    expect(text(root, "detail-heading")).toBe("Message 7 — Reported delivered");
  });

  it("speaks the reader's language", async () => {
    const root = await show(refusedDetail(), ["fr-FR"]);
    expect(text(root, "detail-heading")).toMatch(/^Message 7 — Échec : .*\(ESME_RINVDSTADR\)$/);
    await view!.unmount();
    const ru = await show(refusedDetail(), ["ru-RU"]);
    expect(text(ru, "detail-heading")).toMatch(/^Сообщение 7 — Ошибка: .*\(ESME_RINVDSTADR\)$/);
  });

  it("shows the timeline's times to the second", async () => {
    const root = await show(deliveredDetail());
    const { formatDateTimePrecise, formatDateTime } = createI18n(["en-US"]);
    const times = [...root.querySelectorAll<HTMLElement>('[data-testid="timeline-time"]')].map((e) => e.textContent);
    expect(times).toContain(formatDateTimePrecise(T0 + 1_200));
    expect(times).not.toContain(formatDateTime(T0 + 1_200));
    expect(formatDateTimePrecise(T0 + 1_200), "the try's answer came at 12:00:01").toMatch(/:01[.,]2/);
  });
});

describe("a message the SMSC refused does not wait for a receipt", () => {
  it("says no receipt will come because it was never accepted", async () => {
    const root = await show(refusedDetail());
    const network = byTestId(root, "statement-network");
    expect(network.dataset["neverAccepted"]).toBe("");
    expect(text(root, "statement-network-state")).toBe("No report: never accepted");
    expect(text(root, "statement-network-rule")).toBe(
      "No receipt will come: the provider never accepted this message, so the network has nothing to report on it.",
    );
    expect(network.textContent, "nothing is awaited").not.toMatch(/\byet\b/);
  });

  it("a message accepted and still waiting says so", async () => {
    const base = deliveredDetail();
    const root = await show(
      deliveredDetail({
        state: { ...base.state, state: "pending", rule: "no_report", reported_state: null, supporting_receipt_ids: [] },
        receipts: [],
      }),
    );
    expect(byTestId(root, "statement-network").dataset["neverAccepted"]).toBeUndefined();
    expect(text(root, "statement-network-state")).toBe("Nothing reported yet");
  });
});

describe("copy to a new message", () => {
  it("is offered where a correction is needed, and opens Compose with the number, text and kind", async () => {
    const detail = refusedDetail();
    const root = await show(detail);
    const link = byTestId<HTMLAnchorElement>(root, "copy-to-new");
    expect(link.textContent).toBe("Copy to a new message");
    const href = link.getAttribute("href") ?? "";
    expect(href.startsWith("#/messages/new/"), "the compose form's address").toBe(true);
    expect(readCopy(href)).toEqual({ destination: "+33612345613", text: "Your code is 5521", kind: "otp" });
    await view!.unmount();

    window.location.hash = href;
    const backend = new FakeBackend();
    backend.previewMessages = () => new Promise(() => {});
    view = await render(<Compose backend={backend} previewDelayMs={0} />);
    await settle();
    expect(byTestId<HTMLInputElement>(view.container, "send-destination").value).toBe("+33612345613");
    expect(byTestId<HTMLTextAreaElement>(view.container, "send-text").value).toBe("Your code is 5521");
    expect(byTestId<HTMLSelectElement>(view.container, "send-kind").value).toBe("otp");
  });

  it("carries a text with any character through the address", () => {
    const body = "Bonjour / été & 100% ?#=+\nligne 2";
    const href = `#/messages/new/copy?${new URLSearchParams({ to: "+33612345613", kind: "bulk", text: body }).toString()}`;
    expect(readCopy(href)).toEqual({ destination: "+33612345613", text: body, kind: "bulk" });
    expect(readCopy("#/messages/new"), "a plain compose address carries nothing").toBeNull();
    expect(readCopy("#/messages/7")).toBeNull();
  });

  it("is not offered for a message that went well, nor to someone who may not send", async () => {
    let root = await show(deliveredDetail());
    expect(queryTestId(root, "copy-to-new")).toBeNull();
    await view!.unmount();
    root = await show(refusedDetail(), undefined, person("viewer"));
    expect(queryTestId(root, "copy-to-new")).toBeNull();
  });

  it("is offered for a message held because its number opted out, whose heading says so", async () => {
    const root = await show(
      refusedDetail({ status: "held", last_error: "not sent: opted out" }),
    );
    expect(text(root, "detail-heading")).toBe("Message 7 — Held for a person: its number is on the opt-out list");
    expect(queryTestId(root, "copy-to-new")).not.toBeNull();
  });
});
