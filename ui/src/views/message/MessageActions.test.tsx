// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../../backend";
import type { MessageAction } from "../../bindings/MessageAction";
import type { MessageDetail as Detail } from "../../bindings/MessageDetail";
import { createI18n } from "../../i18n/i18n";
import { byTestId, click, queryTestId, render, settle, type, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { attempt, deliveredDetail, receipt, summary, T0 } from "../../test/fixtures";
import { MessageDetail } from "../MessageDetail";
import { MessageActions } from "./MessageActions";
import { networkEvidence, permanentReason } from "./words";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const text = (id: string): string => byTestId(view!.container, id).textContent ?? "";

/** A message refused for good on its last try (ESME_RINVDSTADR), as the detail shows it. */
function refusedDetail(): Detail {
  const refused = attempt(21, {
    message_id: 7,
    outcome: "permanent",
    command_status: 11,
    command_status_hex: "0x0000000B",
    command_status_name: "ESME_RINVDSTADR",
    command_status_meaning: "Invalid destination address (phone number)",
    provider_message_id: null,
    provider_id_norm: null,
  });
  const base = deliveredDetail();
  return {
    ...base,
    summary: summary(7, { status: "failed", attempts: 2 }),
    queue: { ...base.queue, status: "failed", attempts: 1, accepted_at_ms: null, provider_message_ids: [] },
    attempts: [attempt(20, { message_id: 7, outcome: "permanent", command_status: 11 }), { ...refused, attempt_no: 2 }],
    receipts: [],
  };
}

const PERMANENT = new BackendError(
  "permanent_failure_retry",
  "its last try was refused for good by the SMSC (ESME_RINVDSTADR: Invalid destination address (phone number)); sending it again will fail the same way unless that changed: confirm to go on",
  { commandStatus: "ESME_RINVDSTADR" },
);

/** The retry form of message 7, whose retries `answer` decides; every action asked is kept. */
async function retrying(answer: (a: MessageAction) => Promise<void>, detail: Detail = refusedDetail(), languages?: string[]) {
  const backend = new FakeBackend();
  backend.message = () => Promise.resolve(detail);
  const calls: MessageAction[] = [];
  backend.retry = (_id, action) => {
    calls.push(action);
    return answer(action);
  };
  view = await render(
    <MessageDetail backend={backend} id={7} onClose={() => {}} onOpenException={() => {}} />,
    languages,
  );
  await settle();
  await click(byTestId(view.container, "retry-open"));
  return calls;
}

describe("retry of a message refused for good", () => {
  it("explains in plain words that it will fail again, and resends only once confirmed with a note", async () => {
    const calls = await retrying((a) => (a.confirm_permanent_failure === true ? Promise.resolve() : Promise.reject(PERMANENT)));
    const root = view!.container;
    expect(queryTestId(root, "retry-permanent-warning"), "nothing is said before the engine refuses").toBeNull();
    await click(byTestId(root, "retry-submit"));
    await settle();
    expect(calls).toEqual([{ note: "", confirm_duplicate: false, override_limits: false }]);

    const warning = byTestId(root, "retry-permanent-warning");
    expect(warning.getAttribute("role")).toBe("alert");
    expect(warning.textContent).toContain("Sending it again will fail again");
    expect(text("retry-permanent-reason")).toBe(
      "The provider refused its last try for good because the phone number is not valid (ESME_RINVDSTADR).",
    );
    expect(warning.textContent).toContain("A retry will most likely be refused for the same reason");
    expect(queryTestId(root, "retry-duplicate-warning")).toBeNull();

    const confirm = byTestId<HTMLButtonElement>(root, "retry-permanent-confirm");
    expect(confirm.textContent).toBe("Send again anyway");
    expect(confirm.disabled, "confirming needs a note").toBe(true);
    await type(byTestId<HTMLTextAreaElement>(root, "retry-note"), " The customer corrected the number with the provider ");
    expect(confirm.disabled).toBe(false);
    await click(confirm);
    await settle();
    expect(calls[1]).toEqual({
      note: "The customer corrected the number with the provider",
      confirm_duplicate: false,
      override_limits: false,
      confirm_permanent_failure: true,
    });
    expect(text("action-done")).toBe("Put back in the queue: it will be sent again.");
  });

  it("names the reason in the reader's language, and a status it has no words for by its name", async () => {
    await retrying(() => Promise.reject(PERMANENT), refusedDetail(), ["fr-FR"]);
    await click(byTestId(view!.container, "retry-submit"));
    await settle();
    expect(text("retry-permanent-reason")).toBe(
      "Le fournisseur a refusé définitivement son dernier essai : le numéro de téléphone n’est pas valide (ESME_RINVDSTADR).",
    );
    expect(permanentReason("ESME_RX_R_APPN")).toBe("receiver");
    expect(permanentReason("ESME_RINVSRCADR")).toBe("source");
    expect(permanentReason("ESME_RINVESMCLASS")).toBe("other");
    expect(permanentReason(null)).toBe("other");
  });

  it("after an admin's override, a permanent refusal still asks for its own confirmation and keeps the override", async () => {
    const limits = new BackendError("attempts_exhausted", "it was tried 5 times, and a bulk message may be tried 5 times in all");
    const calls = await retrying((a) =>
      a.override_limits !== true ? Promise.reject(limits) : a.confirm_permanent_failure === true ? Promise.resolve() : Promise.reject(PERMANENT),
    );
    const root = view!.container;
    await click(byTestId(root, "retry-submit"));
    await settle();
    await click(byTestId(root, "retry-limits-override"));
    await type(byTestId<HTMLTextAreaElement>(root, "retry-note"), "Number fixed upstream");
    await click(byTestId(root, "retry-override-submit"));
    await settle();
    expect(queryTestId(root, "retry-permanent-warning")).not.toBeNull();
    await click(byTestId(root, "retry-permanent-confirm"));
    await settle();
    expect(calls.at(-1)).toEqual({
      note: "Number fixed upstream",
      confirm_duplicate: false,
      override_limits: true,
      confirm_permanent_failure: true,
    });
    expect(queryTestId(root, "action-done")).not.toBeNull();
  });
});

describe("the duplicate warning names the strongest evidence", () => {
  const asked = new BackendError("confirmation_required", "a receipt for this message was received: sending it again may deliver it twice");

  it("a receipt that reported it delivered: when, and which receipt", async () => {
    await retrying((a) => (a.confirm_duplicate ? Promise.resolve() : Promise.reject(asked)), deliveredDetail());
    await click(byTestId(view!.container, "retry-submit"));
    await settle();
    const { formatDateTime } = createI18n(["en-US"]);
    expect(text("retry-duplicate-evidence")).toBe(
      `The network reported it delivered at ${formatDateTime(T0 + 5_000)} (receipt #11). Sending it again may put it on the recipient’s phone a second time.`,
    );
    expect(byTestId(view!.container, "retry-duplicate-evidence").dataset["evidence"]).toBe("delivered");
  });

  it("else the SMSC's acceptance, with its time, in the reader's language and date format", async () => {
    const accepted = deliveredDetail({ receipts: [receipt(11, { reported_state: "enroute" })] });
    await retrying((a) => (a.confirm_duplicate ? Promise.resolve() : Promise.reject(asked)), accepted, ["ru-RU"]);
    await click(byTestId(view!.container, "retry-submit"));
    await settle();
    const { formatDateTime } = createI18n(["ru-RU"]);
    expect(text("retry-duplicate-evidence")).toContain(`SMSC принял его: ${formatDateTime(T0 + 1_200)}`);
    expect(byTestId(view!.container, "retry-duplicate-evidence").dataset["evidence"]).toBe("accepted");
  });

  it("networkEvidence: a delivered receipt beats acceptance; a repeat is not the evidence; acceptance falls back to the try", () => {
    expect(networkEvidence(deliveredDetail())).toEqual({ kind: "delivered", atMs: T0 + 5_000, receiptId: 11 });
    const repeatOnly = deliveredDetail({ receipts: [receipt(12, { is_repeat: true })] });
    expect(networkEvidence(repeatOnly)).toEqual({ kind: "accepted", atMs: T0 + 1_200 });
    const base = deliveredDetail();
    const noQueueTime = deliveredDetail({
      receipts: [],
      queue: { ...base.queue, accepted_at_ms: null },
      attempts: [attempt(21, { outcome: "accepted", responded_at_ms: T0 + 800 })],
    });
    expect(networkEvidence(noQueueTime)).toEqual({ kind: "accepted", atMs: T0 + 800 });
    expect(networkEvidence(refusedDetail())).toBeNull();
  });

  it("an unknown outcome without evidence says so", async () => {
    view = await render(
      <MessageActions
        backend={Object.assign(new FakeBackend(), { retry: () => Promise.reject(asked) })}
        messageId={7}
        status="outcome_unknown"
        onDone={() => {}}
      />,
    );
    await click(byTestId(view.container, "retry-open"));
    await click(byTestId(view.container, "retry-submit"));
    await settle();
    expect(text("retry-duplicate-evidence")).toContain("The last try got no answer");
  });
});

describe("the queue's count of tries", () => {
  it("counts every try the message had, across retries, as the timeline numbers them", async () => {
    const backend = new FakeBackend();
    backend.message = () => Promise.resolve(refusedDetail());
    view = await render(<MessageDetail backend={backend} id={7} onClose={() => {}} onOpenException={() => {}} />);
    await settle();
    expect(text("queue-tries"), "two tries, though the queue's own round counted one").toBe("2");
  });
});
