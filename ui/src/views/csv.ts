import type { FieldError } from "../bindings/FieldError";
import type { MessageKind } from "../bindings/MessageKind";
import type { SubmitMessage } from "../bindings/SubmitMessage";
import type { Template } from "../bindings/Template";
import { MESSAGE_KINDS } from "./labels";

/** The columns an import file may have; the first two are required. */
export const REQUIRED_COLUMNS = ["destination", "text"] as const;
export const OPTIONAL_COLUMNS = [
  "kind",
  "priority",
  "client_ref",
  "ordering_key",
  "valid_until",
  "scheduled_at",
] as const;
/** Columns read and left aside: those the file of rejected rows adds, so it can be corrected and imported again as it is. */
export const IGNORED_COLUMNS = ["line", "reason"] as const;
type Column = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];
const KNOWN: readonly string[] = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS, ...IGNORED_COLUMNS];

/** Why a whole file cannot be read; `line` counts from 1, as a spreadsheet shows it. */
export type CsvProblem =
  | { readonly code: "empty" }
  | { readonly code: "unclosed_quote"; readonly line: number }
  | { readonly code: "missing_column"; readonly column: string }
  | { readonly code: "unknown_column"; readonly column: string }
  | { readonly code: "duplicate_column"; readonly column: string }
  | { readonly code: "field_count"; readonly line: number; readonly found: number; readonly expected: number };

/** The codes of what the page itself refuses in a row before the engine sees it: a kind or a priority it cannot read. */
export const LOCAL_CODES = { kind: "invalid", priority: "invalid_type" } as const;

/** Whether a row's error is a placeholder of its template left without a value (the engine names it). */
export function isUnfilled(e: FieldError): boolean {
  return e.code === "template_value_missing";
}

export interface ImportRow {
  /** The line the record starts on in the file, from 1 (the header is line 1). */
  readonly line: number;
  readonly message: SubmitMessage;
  /** The record exactly as the file has it (without its line break). */
  readonly raw: string;
  /** Problems found while reading the row (a kind or priority the engine could not even read). */
  readonly errors: readonly FieldError[];
}

export type ReadResult =
  | { readonly ok: true; readonly header: string; readonly rows: readonly ImportRow[] }
  | { readonly ok: false; readonly problem: CsvProblem };

export interface CsvRecord {
  readonly line: number;
  readonly fields: string[];
  /** The record as written, without its line break. */
  readonly raw: string;
}

/**
 * Splits RFC 4180 text into records: fields separated by commas, records by CRLF or LF; a field in
 * double quotes may hold commas, line breaks and doubled quotes (`""` for `"`). A leading byte
 * order mark is dropped. Throws nothing: an unclosed quote is reported with its line.
 */
export function parseCsv(input: string): { records: CsvRecord[] } | { unclosedQuoteLine: number } {
  const text = input.startsWith("\uFEFF") ? input.slice(1) : input;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let quoteLine = 1;
  let i = 0;
  let start = 0;

  const endField = () => {
    fields.push(field);
    field = "";
  };
  const endRecord = (end: number) => {
    endField();
    records.push({ line: recordLine, fields, raw: text.slice(start, end) });
    fields = [];
  };

  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        if (c === "\n") line += 1;
        field += c;
      }
      i += 1;
      continue;
    }
    if (c === '"' && field === "") {
      quoted = true;
      quoteLine = line;
    } else if (c === ",") {
      endField();
    } else if (c === "\r" && text[i + 1] === "\n") {
      endRecord(i);
      line += 1;
      recordLine = line;
      i += 1;
      start = i + 1;
    } else if (c === "\n") {
      endRecord(i);
      line += 1;
      recordLine = line;
      start = i + 1;
    } else {
      field += c;
    }
    i += 1;
  }
  if (quoted) return { unclosedQuoteLine: quoteLine };
  // The last record, unless the text ended with a line break.
  if (field !== "" || fields.length > 0) endRecord(text.length);
  return { records };
}

const isBlank = (record: CsvRecord): boolean => record.fields.length === 1 && record.fields[0]?.trim() === "";

/**
 * Reads an import file: a header row naming the columns (destination and text required, in any
 * order, any case), then one message per row. Blank lines are skipped; empty optional cells are
 * absent values.
 *
 * With a `template`, each row is sent with it, the value of each of its `{placeholders}` read
 * from the row's column of the same name (any case; the value trimmed): the file needs no text
 * column and may have columns of any name. The engine fills the template, and names a
 * placeholder the row has no value for (the column is missing or the cell empty).
 */
export function readImportFile(input: string, template: Template | null = null): ReadResult {
  const parsed = parseCsv(input);
  if ("unclosedQuoteLine" in parsed) return { ok: false, problem: { code: "unclosed_quote", line: parsed.unclosedQuoteLine } };
  const records = parsed.records.filter((r) => !isBlank(r));
  const header = records[0];
  if (header === undefined) return { ok: false, problem: { code: "empty" } };

  const columns = header.fields.map((name) => name.trim().toLowerCase());
  for (const [i, column] of columns.entries()) {
    if (template === null && !KNOWN.includes(column)) {
      return { ok: false, problem: { code: "unknown_column", column: header.fields[i] ?? column } };
    }
    if (columns.indexOf(column) !== i) return { ok: false, problem: { code: "duplicate_column", column } };
  }
  for (const column of REQUIRED_COLUMNS) {
    if (template !== null && column === "text") continue;
    if (!columns.includes(column)) return { ok: false, problem: { code: "missing_column", column } };
  }

  const rows: ImportRow[] = [];
  for (const record of records.slice(1)) {
    if (record.fields.length !== columns.length) {
      return {
        ok: false,
        problem: { code: "field_count", line: record.line, found: record.fields.length, expected: columns.length },
      };
    }
    const cell = new Map<Column, string>();
    columns.forEach((column, i) => cell.set(column as Column, record.fields[i] ?? ""));
    const row = toRow(record.line, record.raw, cell);
    rows.push(template === null ? row : filled(row, template, columns, record.fields));
  }
  return { ok: true, header: header.raw, rows };
}

function toRow(line: number, raw: string, cell: Map<Column, string>): ImportRow {
  const errors: FieldError[] = [];
  const optional = (column: Column): string | null => {
    const value = cell.get(column)?.trim() ?? "";
    return value === "" ? null : value;
  };
  const message: SubmitMessage = {
    destination: cell.get("destination")?.trim() ?? "",
    // The text is kept exactly as written: spaces and line breaks are part of the message.
    text: cell.get("text") ?? "",
  };

  const kind = optional("kind")?.toLowerCase() ?? null;
  if (kind !== null) {
    if ((MESSAGE_KINDS as readonly string[]).includes(kind)) message.kind = kind as MessageKind;
    else errors.push({ field: "kind", code: LOCAL_CODES.kind, params: { value: kind }, message: `unknown kind "${kind}"` });
  }
  const priority = optional("priority");
  if (priority !== null) {
    if (/^\d+$/.test(priority)) message.priority = Number(priority);
    else errors.push({ field: "priority", code: LOCAL_CODES.priority, params: { value: priority }, message: `"${priority}" is not a whole number` });
  }
  const text = (column: "client_ref" | "ordering_key" | "valid_until" | "scheduled_at") => {
    const value = optional(column);
    if (value !== null) message[column] = value;
  };
  text("client_ref");
  text("ordering_key");
  text("valid_until");
  text("scheduled_at");
  return { line, message, raw, errors };
}

/** `row` sent with `template`, its placeholders' values read from the row's cells of the same names (any case, trimmed; empty ones left out). */
function filled(row: ImportRow, template: Template, columns: readonly string[], fields: readonly string[]): ImportRow {
  const values: Record<string, string> = {};
  for (const name of template.placeholders) {
    const at = columns.indexOf(name.toLowerCase());
    const value = at < 0 ? "" : (fields[at] ?? "").trim();
    if (value !== "") values[name] = value;
  }
  const message: SubmitMessage = { ...row.message, template: template.name, values };
  // The template is the text: a text column, if there is one, is left aside.
  delete message.text;
  return { ...row, message };
}

/** One CSV field, quoted when it must be (a comma, a quote or a line break in it). */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * The rows an import left out, as a CSV file: `line` (in the file imported) and `reason` first,
 * then each row exactly as it was written under the file's own header. Imported again as it is
 * (once corrected), its `line` and `reason` columns are left aside.
 */
export function rejectedRowsCsv(header: string, rows: readonly { line: number; raw: string; reason: string }[]): string {
  const lines = [`line,reason,${header}`, ...rows.map((r) => `${r.line},${csvField(r.reason)},${r.raw}`)];
  return `${lines.join("\r\n")}\r\n`;
}

/** Splits a list into chunks of at most `size` (the engine takes at most intake.max_batch at once). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A stable fingerprint of a file's content, for idempotency keys: importing the same file again
 * reuses the same keys, so the engine queues nothing twice. SHA-256 where the browser offers it
 * (not on plain HTTP to a network address), else 64-bit FNV-1a.
 */
export async function contentHash(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const subtle = globalThis.crypto?.subtle as SubtleCrypto | undefined;
  if (subtle !== undefined) {
    try {
      const digest = await subtle.digest("SHA-256", bytes);
      return `sha256-${hex(new Uint8Array(digest))}`;
    } catch {
      // Fall through to FNV.
    }
  }
  return `fnv-${fnv1a64(bytes)}`;
}

export function fnv1a64(bytes: Uint8Array): string {
  let hash = 0xcbf29ce484222325n;
  for (const b of bytes) {
    hash ^= BigInt(b);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The idempotency key of one chunk of an import. */
export function chunkKey(hash: string, index: number): string {
  return `csv-${hash}-${index}`;
}
