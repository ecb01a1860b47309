import { describe, expect, it } from "vitest";
import { deliveredDetail, receipt, T0, webhook } from "../../test/fixtures";
import { buildTimeline, lateReceipts } from "./timeline";

describe("buildTimeline", () => {
  it("joins each engine entry to its row and merges webhooks by time, keeping the engine's order at equal times", () => {
    const detail = deliveredDetail({ webhooks: [webhook(1, { createdAt: T0 + 5_000 }), webhook(2, { createdAt: T0 - 1 })] });
    const items = buildTimeline(detail);
    expect(items.map((i) => i.kind)).toEqual(["webhook", "created", "attempt", "attempt_result", "receipt", "webhook", "receipt"]);
    const first = items[4];
    expect(first?.kind === "receipt" && first.receipt?.id).toBe(11);
    const answer = items[3];
    expect(answer?.kind === "attempt_result" && answer.attempt?.provider_message_id).toBe("0A1b ");
  });

  it("keeps an entry whose row is missing, with the engine's words", () => {
    const detail = deliveredDetail({ receipts: [] });
    const receipts = buildTimeline(detail).filter((i) => i.kind === "receipt");
    expect(receipts).toHaveLength(2);
    expect(receipts.every((i) => i.kind === "receipt" && i.receipt === null)).toBe(true);
  });
});

describe("lateReceipts", () => {
  it("are the intermediate reports received after the first final one, when the message is flagged late", () => {
    const rs = [
      receipt(1, { reported_state: "enroute" }),
      receipt(2, { reported_state: "delivered" }),
      receipt(3, { reported_state: "enroute" }),
      receipt(4, { reported_state: "accepted", is_repeat: true }),
    ];
    expect([...lateReceipts(rs, true)]).toEqual([3]);
    expect([...lateReceipts(rs, false)], "only when the rules flagged it").toEqual([]);
  });
});
