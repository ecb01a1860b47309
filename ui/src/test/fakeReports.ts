// A plausible office for the Reports screen: two connections, "primary" delivering and "backup"
// failing, in France and Belgium, and the message list answering the report's filters.

import type { DeliveryReport } from "../bindings/DeliveryReport";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { MessagePage } from "../bindings/MessagePage";
import type { MessageSummary } from "../bindings/MessageSummary";
import type { ReportDimension } from "../bindings/ReportDimension";
import type { ReportFigures } from "../bindings/ReportFigures";
import type { ReportGroup } from "../bindings/ReportGroup";
import type { ReportPoint } from "../bindings/ReportPoint";
import type { ReportQuery } from "../bindings/ReportQuery";
import { FakeBackend } from "./fakeBackend";
import { summary } from "./fixtures";

/** The counts of one group over one period; the shares and latencies follow from them. */
interface Counts {
  readonly delivered: number;
  readonly failed: number;
  readonly expired: number;
  readonly no_receipt: number;
  readonly pending: number;
  readonly p50: number | null;
  readonly p95: number | null;
}

const NONE: Counts = { delivered: 0, failed: 0, expired: 0, no_receipt: 0, pending: 0, p50: null, p95: null };

export function figures(c: Counts): ReportFigures {
  const messages = c.delivered + c.failed + c.expired + c.no_receipt + c.pending;
  const pct = (n: number): number | null => (messages === 0 ? null : (n / messages) * 100);
  return {
    messages,
    parts: Math.round(messages * 1.1),
    delivered: c.delivered,
    failed: c.failed,
    expired: c.expired,
    cancelled: 0,
    no_receipt: c.no_receipt,
    unknown: 0,
    pending: c.pending,
    delivered_pct: pct(c.delivered),
    failed_pct: pct(c.failed + c.expired),
    no_receipt_pct: pct(c.no_receipt),
    latency_p50_ms: c.p50,
    latency_p95_ms: c.p95,
  };
}

function add(a: Counts, b: Counts): Counts {
  return {
    delivered: a.delivered + b.delivered,
    failed: a.failed + b.failed,
    expired: a.expired + b.expired,
    no_receipt: a.no_receipt + b.no_receipt,
    pending: a.pending + b.pending,
    p50: a.p50 ?? b.p50,
    p95: Math.max(a.p95 ?? 0, b.p95 ?? 0) || null,
  };
}

/** Each connection this period and the one before: primary delivers, backup fails more than before. */
export const PRIMARY: { now: Counts; before: Counts } = {
  now: { delivered: 1140, failed: 12, expired: 4, no_receipt: 20, pending: 4, p50: 4_000, p95: 30_000 },
  before: { delivered: 1000, failed: 20, expired: 5, no_receipt: 20, pending: 0, p50: 4_000, p95: 60_000 },
};
export const BACKUP: { now: Counts; before: Counts } = {
  now: { delivered: 60, failed: 150, expired: 30, no_receipt: 0, pending: 0, p50: 12_000, p95: 600_000 },
  before: { delivered: 180, failed: 15, expired: 5, no_receipt: 0, pending: 0, p50: 8_000, p95: 120_000 },
};
/** Messages never tried on any connection (held, then cancelled): new this period. */
export const NEVER_TRIED: { now: Counts; before: Counts } = {
  now: { ...NONE, failed: 3 },
  before: NONE,
};

const BY_CONNECTION: readonly { key: string; label: string; counts: { now: Counts; before: Counts } }[] = [
  { key: "primary", label: "primary", counts: PRIMARY },
  { key: "backup", label: "backup", counts: BACKUP },
  { key: "", label: "", counts: NEVER_TRIED },
];

/** The values of a second dimension, and the share of each group they hold. */
const SPLITS: Partial<Record<ReportDimension, readonly { key: string; label: string; share: number }[]>> = {
  country: [
    { key: "FR", label: "FR", share: 0.75 },
    { key: "BE", label: "BE", share: 0.25 },
  ],
  kind: [
    { key: "transactional", label: "transactional", share: 0.8 },
    { key: "otp", label: "otp", share: 0.2 },
  ],
  sender: [
    { key: "key:3", label: "Shop", share: 0.9 },
    { key: "csv", label: "csv", share: 0.1 },
  ],
  command_status: [
    { key: "0", label: "0x00000000 ESME_ROK", share: 0.9 },
    { key: "11", label: "0x0000000B ESME_RINVDSTADR", share: 0.1 },
  ],
};

function scale(c: Counts, share: number): Counts {
  const part = (n: number): number => Math.round(n * share);
  return { ...c, delivered: part(c.delivered), failed: part(c.failed), expired: part(c.expired), no_receipt: part(c.no_receipt), pending: part(c.pending) };
}

/** A bucket's figures: the period's spread evenly, with the failures late (the backup went wrong). */
function series(c: Counts, buckets: number): ReportPoint[] {
  return Array.from({ length: buckets }, (_, i) => {
    const late = i >= buckets / 2 ? 2 : 0;
    const share = 1 / buckets;
    const failed = Math.round((c.failed + c.expired) * share * late);
    const delivered = Math.round(c.delivered * share);
    const no_receipt = Math.round(c.no_receipt * share);
    return { messages: delivered + failed + no_receipt, delivered, failed, no_receipt };
  });
}

/**
 * The engine's answer for a query, as plausible as a test needs: by connection (or nothing, or
 * any dimension the first level stands in for), and a second dimension splitting each group.
 */
export function deliveryReportFor(query: ReportQuery): DeliveryReport {
  const by = (query.by ?? "").split(",").filter((d) => d !== "") as ReportDimension[];
  const step = query.step ?? "day";
  const width = step === "hour" ? 3_600_000 : 86_400_000;
  const buckets = Array.from({ length: Math.max(1, Math.round((query.to_ms - query.from_ms) / width)) }, (_, i) => query.from_ms + i * width);
  const firstLevel = BY_CONNECTION.map((g) => ({ key: [g.key], label: [g.label], counts: g.counts }));
  const second = by[1] === undefined ? null : (SPLITS[by[1]] ?? [{ key: "x", label: "x", share: 1 }]);
  const levels =
    second === null
      ? firstLevel
      : firstLevel.flatMap((g) =>
          second.map((s) => ({
            key: [...g.key, s.key],
            label: [...g.label, s.label],
            counts: { now: scale(g.counts.now, s.share), before: scale(g.counts.before, s.share) },
          })),
        );
  const totalNow = BY_CONNECTION.reduce((sum, g) => add(sum, g.counts.now), NONE);
  const totalBefore = BY_CONNECTION.reduce((sum, g) => add(sum, g.counts.before), NONE);
  const groups: ReportGroup[] =
    by.length === 0
      ? [{ key: [], label: [], figures: figures(totalNow), previous: figures(totalBefore), series: series(totalNow, buckets.length) }]
      : levels
          .map((g) => ({ key: g.key, label: g.label, figures: figures(g.counts.now), previous: figures(g.counts.before), series: series(g.counts.now, buckets.length) }))
          .filter((g) => g.figures.messages > 0 || g.previous.messages > 0)
          .sort((a, b) => b.figures.messages - a.figures.messages);
  return {
    from_ms: query.from_ms,
    to_ms: query.to_ms,
    previous_from_ms: query.from_ms - (query.to_ms - query.from_ms),
    by,
    step,
    utc_offset_minutes: query.utc_offset_minutes ?? 0,
    buckets,
    total: figures(totalNow),
    previous_total: figures(totalBefore),
    groups,
  };
}

/** An empty period: no message now or before. */
export function emptyReportFor(query: ReportQuery): DeliveryReport {
  const zero = figures(NONE);
  return { ...deliveryReportFor(query), total: zero, previous_total: zero, groups: [] };
}

/** A message's outcome as a report counts it (enough of the engine's classification for tests). */
export function outcomeOf(m: MessageSummary): string {
  if (m.state === "delivered") return "delivered";
  if (m.status === "expired") return "expired";
  if (m.status === "failed" || m.state === "undeliverable" || m.state === "rejected") return "failed";
  if (m.status === "cancelled") return "cancelled";
  if (m.status === "outcome_unknown") return "unknown";
  if (m.status === "accepted" && m.flags.includes("no_receipt")) return "no_receipt";
  return "pending";
}

/** Messages of both connections, a few of each outcome. */
export const REPORT_MESSAGES: readonly MessageSummary[] = [
  summary(1, { connection: "primary", status: "accepted", state: "delivered" }),
  summary(2, { connection: "primary", status: "failed", state: "undeliverable" }),
  summary(3, { connection: "backup", status: "failed", state: "undeliverable" }),
  summary(4, { connection: "backup", status: "expired", state: "expired" }),
  summary(5, { connection: "backup", status: "accepted", state: "delivered" }),
  summary(6, { connection: "", status: "cancelled" }),
];

/** Whether a message passes the filter's report fields and period (as the engine's list does). */
export function matches(m: MessageSummary, f: MessageFilter): boolean {
  if (f.connection !== null && m.connection !== f.connection) return false;
  if (f.outcome !== null && !f.outcome.split(",").includes(outcomeOf(m))) return false;
  if (f.kind !== null && m.kind !== f.kind) return false;
  if (f.from_ms !== null && m.created_at_ms < f.from_ms) return false;
  if (f.to_ms !== null && m.created_at_ms >= f.to_ms) return false;
  return true;
}

/**
 * A backend answering reports (each query kept, in order) and a message list of `messages`
 * filtered as the engine does (each filter kept).
 */
export function reportingBackend(messages: readonly MessageSummary[] = REPORT_MESSAGES) {
  const backend = new FakeBackend();
  const queries: ReportQuery[] = [];
  const filters: MessageFilter[] = [];
  backend.deliveryReport = (query) => {
    queries.push(query);
    return Promise.resolve(deliveryReportFor(query));
  };
  backend.listMessages = (filter) => {
    filters.push(filter);
    const items = messages.filter((m) => matches(m, filter));
    const page: MessagePage = { items, next_cursor: null, scan_limited: false };
    return Promise.resolve(page);
  };
  return { backend, queries, filters };
}
