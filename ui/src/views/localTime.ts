/**
 * Dates and times as people type them, in the computer's time zone. A field keeps what was typed
 * and gives its callers one canonical form: `YYYY-MM-DD` for a day, `YYYY-MM-DDTHH:MM` for a
 * moment (the form a `datetime-local` input gives).
 */

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_MOMENT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** Whether year, month (1–12) and day make a date (no 30 February rolled over into March). */
function isDate(year: number, month: number, day: number): boolean {
  const d = new Date(2000, 0, 1);
  d.setFullYear(year, month - 1, day);
  return d.getFullYear() === year && d.getMonth() === month - 1 && d.getDate() === day;
}

/** The moment of a canonical `YYYY-MM-DDTHH:MM` in this computer's zone, in ms; null when it is not one. */
export function localMomentMs(value: string): number | null {
  const m = ISO_MOMENT.exec(value.trim());
  if (m === null) return null;
  const [year, month, day, hour, minute] = m.slice(1).map(Number) as [number, number, number, number, number];
  if (!isDate(year, month, day) || hour > 23 || minute > 59) return null;
  const d = new Date(2000, 0, 1, hour, minute);
  d.setFullYear(year, month - 1, day);
  return d.getTime();
}

/** A canonical moment ("2026-12-01T09:30"), in this computer's zone, as RFC 3339; null when empty or unreadable. */
export function localToRfc3339(value: string): string | null {
  const ms = localMomentMs(value);
  return ms === null ? null : new Date(ms).toISOString();
}

/** This computer's time zone, as people name it ("Europe/Paris"). */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * The time zone as every time on screen names it ("GMT+1", "UTC+1"): the same words the dates
 * shown carry, so that a field and the list beside it say the zone one way.
 */
export function zoneName(formatTag: string, atMs: number = Date.now()): string {
  const parts = new Intl.DateTimeFormat(formatTag, { timeZoneName: "shortOffset" }).formatToParts(new Date(atMs));
  return parts.find((p) => p.type === "timeZoneName")?.value ?? localZone();
}

type DatePart = "day" | "month" | "year";

/** The order of day, month and year in the locale's numeric dates, and what separates them. */
export function dateOrder(formatTag: string): { order: DatePart[]; separator: string } {
  const parts = new Intl.DateTimeFormat(formatTag, { day: "2-digit", month: "2-digit", year: "numeric" }).formatToParts(
    new Date(2026, 11, 31),
  );
  const order = parts.flatMap((p) => (p.type === "day" || p.type === "month" || p.type === "year" ? [p.type] : []));
  const separator = parts.find((p) => p.type === "literal")?.value.trim() || "/";
  return order.length === 3 ? { order, separator } : { order: ["day", "month", "year"], separator: "/" };
}

/** The words a field's placeholder is made of, in the reader's language ("jj", "mm", "aaaa", "hh"). */
export interface PartNames {
  readonly day: string;
  readonly month: string;
  readonly year: string;
  readonly hour: string;
  readonly minute: string;
}

/** How a date is typed in this locale: "dd/mm/yyyy", "jj/mm/aaaa hh:mm", "дд.мм.гггг чч:мм". */
export function datePattern(formatTag: string, names: PartNames, withTime: boolean): string {
  const { order, separator } = dateOrder(formatTag);
  const day = order.map((part) => names[part]).join(separator);
  return withTime ? `${day} ${names.hour}:${names.minute}` : day;
}

/**
 * What was typed, read in the locale's order ("31/12/2026 09:30" in French, "12/31/2026 9:30 PM"
 * in American English; any separators), or as `YYYY-MM-DD[ HH:MM]`: the canonical form; "" when
 * empty; null when it cannot be read (a moment needs its time).
 */
export function readTyped(text: string, formatTag: string, withTime: boolean): string | null {
  const typed = text.trim();
  if (typed === "") return "";
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T\s]+(\d{1,2}):(\d{2}))?$/.exec(typed);
  let year: number, month: number, day: number;
  let hour: number | null = null;
  let minute: number | null = null;
  let clock: string | null = null;
  if (iso !== null) {
    [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
    if (iso[4] !== undefined) [hour, minute] = [Number(iso[4]), Number(iso[5])];
  } else {
    const meridiem = /\s*([ap])\.?\s*m\.?$/i.exec(typed);
    const body = meridiem === null ? typed : typed.slice(0, meridiem.index);
    if (/[^\d\s./\-:,]/.test(body)) return null;
    const groups = body.match(/\d+/g) ?? [];
    const { order } = dateOrder(formatTag);
    const at = (part: DatePart): string => groups[order.indexOf(part)] ?? "";
    if (at("year").length !== 4 || at("day").length > 2 || at("month").length > 2) return null;
    [year, month, day] = [Number(at("year")), Number(at("month")), Number(at("day"))];
    if (groups.length === 5) [hour, minute] = [Number(groups[3]), Number(groups[4])];
    else if (groups.length !== 3) return null;
    clock = meridiem === null ? null : (meridiem[1] ?? "").toLowerCase();
  }
  if (!isDate(year, month, day)) return null;
  const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
  if (!withTime) return hour === null ? date : null;
  if (hour === null || minute === null) return null;
  if (clock !== null) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (clock === "p" ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return null;
  return `${date}T${pad(hour)}:${pad(minute)}`;
}

/** A canonical day or moment as the field shows it, in the locale's order ("31/12/2026 09:30"). */
export function showTyped(value: string, formatTag: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/.exec(value.trim());
  if (m === null) return value;
  const { order, separator } = dateOrder(formatTag);
  const parts: Record<DatePart, string> = { year: m[1] ?? "", month: m[2] ?? "", day: m[3] ?? "" };
  const day = order.map((p) => parts[p]).join(separator);
  return m[4] === undefined ? day : `${day} ${m[4]}:${m[5]}`;
}

/** Whether a value is a canonical day (`YYYY-MM-DD`). */
export function isCanonicalDay(value: string): boolean {
  return ISO_DAY.test(value.trim());
}
