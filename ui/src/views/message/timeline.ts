import type { AttemptView } from "../../bindings/AttemptView";
import type { DeliveryView } from "../../bindings/DeliveryView";
import type { ExceptionSummary } from "../../bindings/ExceptionSummary";
import type { MessageDetail } from "../../bindings/MessageDetail";
import type { ReceiptView } from "../../bindings/ReceiptView";
import type { TimelineEntry } from "../../bindings/TimelineEntry";
import { isFinal } from "../labels";

/** One line of a message's story, with the evidence it rests on. */
export type TimelineItem =
  | { readonly key: string; readonly kind: "created"; readonly at: number; readonly entry: TimelineEntry }
  | {
      readonly key: string;
      readonly kind: "attempt" | "attempt_result";
      readonly at: number;
      readonly entry: TimelineEntry;
      readonly attempt: AttemptView | null;
    }
  | {
      readonly key: string;
      readonly kind: "receipt";
      readonly at: number;
      readonly entry: TimelineEntry;
      readonly receipt: ReceiptView | null;
      readonly late: boolean;
    }
  | {
      readonly key: string;
      readonly kind: "exception_opened" | "exception_closed";
      readonly at: number;
      readonly entry: TimelineEntry;
      readonly exception: ExceptionSummary | null;
    }
  | { readonly key: string; readonly kind: "audit"; readonly at: number; readonly entry: TimelineEntry }
  | { readonly key: string; readonly kind: "webhook"; readonly at: number; readonly delivery: DeliveryView };

export type TimelineItemKind = TimelineItem["kind"];

/** The part of a long message an item is about (a try, or a receipt on one part); null for the whole message. */
export function partOf(item: TimelineItem): number | null {
  return item.kind === "webhook" ? null : item.entry.part;
}

/**
 * For a message sent in parts, its story split so that each part can be read on its own: what
 * concerns the whole message first, then each part's tries and receipts, part 1 first. One group
 * (part null) for a message sent whole.
 */
export function groupByPart(items: readonly TimelineItem[], parts: number): { part: number | null; items: TimelineItem[] }[] {
  if (parts <= 1) return [{ part: null, items: [...items] }];
  const groups: { part: number | null; items: TimelineItem[] }[] = [{ part: null, items: [] }];
  for (let p = 1; p <= parts; p++) groups.push({ part: p, items: [] });
  for (const item of items) {
    const p = partOf(item);
    const group = groups.find((g) => g.part === p) ?? groups[0];
    group?.items.push(item);
  }
  return groups.filter((g) => g.items.length > 0 || g.part !== null);
}

/**
 * Receipts that are intermediate reports arriving after a final one: kept, and changing nothing
 * (the rules' "late" flag). The engine flags the message, not the receipt, so this finds which:
 * in receive order, every intermediate after the first final.
 */
export function lateReceipts(receipts: readonly ReceiptView[], messageIsLate: boolean): Set<number> {
  const late = new Set<number>();
  if (!messageIsLate) return late;
  let finalSeen = false;
  for (const r of [...receipts].sort((a, b) => a.id - b.id)) {
    if (r.reported_state === null || r.is_repeat) continue;
    if (isFinal(r.reported_state)) finalSeen = true;
    else if (finalSeen) late.add(r.id);
  }
  return late;
}

/**
 * The engine's timeline (creation, tries and answers, receipts, exceptions, audited actions, in
 * the order things happened), each entry joined to the row it names, with the message's webhook
 * notifications merged in at the time each was owed. Chronological; at the same millisecond,
 * the engine's order.
 */
export function buildTimeline(detail: MessageDetail): TimelineItem[] {
  const attempts = new Map(detail.attempts.map((a) => [a.id, a]));
  const receipts = new Map(detail.receipts.map((r) => [r.id, r]));
  const exceptions = new Map(detail.exceptions.map((e) => [e.id, e]));
  const late = lateReceipts(detail.receipts, detail.state.flags.late);

  const items: TimelineItem[] = detail.timeline.map((entry, i): TimelineItem => {
    const key = `${entry.kind}:${entry.ref_id}:${i}`;
    const at = entry.at_ms;
    switch (entry.kind) {
      case "attempt":
      case "attempt_result":
        return { key, kind: entry.kind, at, entry, attempt: attempts.get(entry.ref_id) ?? null };
      case "receipt":
        return { key, kind: "receipt", at, entry, receipt: receipts.get(entry.ref_id) ?? null, late: late.has(entry.ref_id) };
      case "exception_opened":
      case "exception_closed":
        return { key, kind: entry.kind, at, entry, exception: exceptions.get(entry.ref_id) ?? null };
      case "created":
        return { key, kind: "created", at, entry };
      case "audit":
        return { key, kind: "audit", at, entry };
    }
  });
  for (const delivery of detail.webhooks) {
    items.push({ key: `webhook:${delivery.id}`, kind: "webhook", at: delivery.createdAt, delivery });
  }
  // Array.prototype.sort is stable: equal times keep the engine's order, webhooks after it.
  return items.sort((a, b) => a.at - b.at);
}
