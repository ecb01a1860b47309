import type { Backend, BackendError } from "../../backend";
import type { MessageKind } from "../../bindings/MessageKind";
import type { SubmittedBatch } from "../../bindings/SubmittedBatch";
import { chunkKey, chunks, type ImportRow } from "../csv";

/** Messages per preview and per batch: well under the engine's intake.max_batch (1000 by default). */
export const CHUNK_SIZE = 500;
/** Rows with errors listed in the dialog at most; the counts and the file of rejected rows cover them all. */
export const TABLE_LIMIT = 500;

export interface CheckedRow extends ImportRow {
  /** The number as it will be sent, when valid. */
  readonly normalised: string | null;
  /** How many SMS parts its text takes, when it has one. */
  readonly segments: number | null;
  /** With a template: its text as the engine filled it from the row, when every placeholder has a value. */
  readonly filled: string | null;
  /** What it would cost (a decimal amount in `currency`), when a price covers it. */
  readonly cost?: string | null;
  /** The currency of `cost`. */
  readonly currency?: string;
}

export type Progress = { readonly done: number; readonly total: number };

/** What one import gives every row that does not say it itself. */
export interface ImportOptions {
  /** Null: each row's own kind (transactional when it names none). */
  readonly kind: MessageKind | null;
  /** RFC 3339; null: as soon as possible (or each row's own scheduled_at). */
  readonly scheduledAt: string | null;
  /** The template each row's text was filled from (its name), if any. */
  readonly template?: string | null;
}

/** The rows with the import's kind and send time where a row names none. */
export function withOptions(rows: readonly ImportRow[], options: ImportOptions): ImportRow[] {
  return rows.map((row) => {
    const message = { ...row.message };
    const refusedKind = row.errors.some((e) => e.field === "kind");
    if (options.kind !== null && (message.kind ?? null) === null && !refusedKind) message.kind = options.kind;
    if (options.scheduledAt !== null && (message.scheduled_at ?? null) === null) message.scheduled_at = options.scheduledAt;
    return { ...row, message };
  });
}

/** Lets the page draw and answer input between two chunks of work. */
const breathe = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Checks every row with the engine (nothing is written), `CHUNK_SIZE` at a time. */
export async function checkRows(
  backend: Backend,
  rows: readonly ImportRow[],
  onProgress: (p: Progress) => void,
): Promise<CheckedRow[]> {
  const checked: CheckedRow[] = [];
  onProgress({ done: 0, total: rows.length });
  for (const chunk of chunks(rows, CHUNK_SIZE)) {
    const answer = await backend.previewMessages({ messages: chunk.map((r) => r.message) });
    chunk.forEach((row, i) => {
      const preview = answer.rows[i];
      // A field already refused in the browser (kind, priority) was left out of the check.
      const engine = (preview?.errors ?? []).filter((e) => !row.errors.some((local) => local.field === e.field));
      checked.push({
        ...row,
        normalised: preview?.destination ?? null,
        segments: preview?.plan?.segments ?? null,
        filled: preview?.text ?? null,
        cost: preview?.cost ?? null,
        currency: answer.currency,
        errors: [...row.errors, ...engine],
      });
    });
    onProgress({ done: checked.length, total: rows.length });
    await breathe();
  }
  return checked;
}

/**
 * Queues the ready rows, `CHUNK_SIZE` at a time, each chunk all or nothing under a key derived
 * from the file's content and the chunk's place: importing the same file again replays the chunks
 * already queued instead of queuing them twice. Stops before the next chunk once `go` says no.
 */
export async function importRows(
  backend: Backend,
  ready: readonly CheckedRow[],
  hash: string,
  onProgress: (p: Progress) => void,
  go: () => boolean = () => true,
  onQueued: (answer: SubmittedBatch) => void = () => {},
): Promise<number> {
  let done = 0;
  onProgress({ done, total: ready.length });
  for (const [index, chunk] of chunks(ready, CHUNK_SIZE).entries()) {
    if (!go()) break;
    const answer = await backend.submitBatch({ messages: chunk.map((r) => r.message) }, chunkKey(hash, index));
    done += answer.messages.length;
    onQueued(answer);
    onProgress({ done, total: ready.length });
  }
  return done;
}

/**
 * The rows of a batch refused because their number is on the opt-out list: the engine names each
 * by its place in the batch (`messages[i].destination`); the batch began after the `queued` rows
 * already queued.
 */
export function optedOutRows(ready: readonly CheckedRow[], queued: number, error: BackendError): CheckedRow[] {
  return error.errors.flatMap((e) => {
    const m = /^messages\[(\d+)\]\.destination$/.exec(e.field);
    const row = m === null ? undefined : ready[queued + Number(m[1])];
    return row === undefined ? [] : [row];
  });
}

/** `contacts.csv` → `contacts-rejected.csv`: the name the file of rejected rows is offered under. */
export function rejectedFileName(fileName: string): string {
  const base = fileName.replace(/\.csv$/i, "").trim();
  return `${base === "" ? "import" : base}-rejected.csv`;
}
