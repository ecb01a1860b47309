import { en, type Dictionary, type MessageKey } from "./en";
import { fr } from "./fr";
import { ru } from "./ru";

export type { Dictionary, MessageKey };

export const dictionaries = { en, fr, ru } as const satisfies Record<string, Dictionary>;
export type Locale = keyof typeof dictionaries;
export const LOCALES = Object.keys(dictionaries) as Locale[];
export const DEFAULT_LOCALE: Locale = "en";

/** The names between braces in an English message, e.g. `"Open {url}"` → `"url"`. */
type Placeholders<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** A key whose message has placeholders must be given a value for each of them. */
export type TranslateArgs<K extends MessageKey> = [Placeholders<(typeof en)[K]>] extends [never]
  ? []
  : [params: Record<Placeholders<(typeof en)[K]>, string | number>];

/**
 * The plural forms the catalogues write for a count (CLDR's, as `Intl.PluralRules` picks them):
 * English uses one and other, French one, many (a million, "de messages") and other, Russian one,
 * few, many (and other for fractions). A message with plural forms has a key for each of the four.
 */
export type PluralForm = "one" | "few" | "many" | "other";

export type Translate = <K extends MessageKey>(key: K, ...args: TranslateArgs<K>) => string;

export interface I18n {
  readonly locale: Locale;
  /** The BCP 47 tag used for Intl formatting (may carry the user's region, e.g. `fr-CA`). */
  readonly formatTag: string;
  readonly t: Translate;
  formatNumber(value: number): string;
  /**
   * The one way a moment is shown: the locale's date and time of day with the time zone
   * ("2 Dec 2026, 14:02 GMT+1", "2 déc. 2026, 14:02 UTC+1"). Wherever a date is shown, this is it
   * (a relative "3 minutes ago" may stand in its place when this is in its tooltip).
   */
  formatDateTime(epochMs: number): string;
  /** The same, to the millisecond, for evidence (receive times, answers): "2 Dec 2026, 14:02:05.007 GMT+1". */
  /** Which plural form a count takes in this language (see {@link PluralForm}). */
  plural(count: number): PluralForm;
  /** The day alone, in the same date style ("2 Dec 2026"), for a table cell that puts the time under it. */
  formatDateShort(epochMs: number): string;
  formatDateTimePrecise(epochMs: number): string;
  /** A chart axis label: the time of day only ("14:02"); the chart's table and note carry the date and zone. */
  formatAxisTime(epochMs: number): string;
  /** A UTC day (the charts' day buckets) in the same date style: "2 Dec 2026". */
  formatUtcDay(epochMs: number): string;
  /** A UTC day as a chart axis label: "2 Dec". */
  formatAxisUtcDay(epochMs: number): string;
  /** @deprecated The same as {@link formatDateTime} (there is one format); use that. */
  formatDateTimeShort(epochMs: number): string;
  /** @deprecated The same as {@link formatDateTime} (there is one format); use that. */
  formatTime(epochMs: number): string;
  /** How long ago, in words ("3 hours ago"), counted from `nowMs`. */
  formatAge(epochMs: number, nowMs: number): string;
}

/** The language of a BCP 47 tag, lower-case (`fr-CA` → `fr`). */
export function languageOf(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/)[0] ?? "";
}

function isLocale(value: string): value is Locale {
  return Object.hasOwn(dictionaries, value);
}

/** The first of the user's preferred languages that we have, else English. */
export function pickLocale(preferred: readonly string[]): { locale: Locale; formatTag: string } {
  for (const tag of preferred) {
    const language = languageOf(tag);
    if (isLocale(language)) return { locale: language, formatTag: canonicalTag(tag) ?? language };
  }
  return { locale: DEFAULT_LOCALE, formatTag: DEFAULT_LOCALE };
}

function canonicalTag(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag.replace("_", "-"))[0];
  } catch {
    return undefined;
  }
}

export function placeholdersOf(message: string): string[] {
  return [...message.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? "").sort();
}

export interface I18nOptions {
  /** The IANA time zone to show times in; the system's when absent (tests name one). */
  readonly timeZone?: string;
}

/** Day, abbreviated month and year, in the locale's order: the date part of every moment shown. */
const DATE_PARTS = { day: "numeric", month: "short", year: "numeric" } as const;
/** The time of day in the locale's clock: "14:02" and "00:30" on a 24-hour one, "2:02 PM" on a 12-hour one. */
function timeParts(formatTag: string): Intl.DateTimeFormatOptions {
  const { hourCycle } = new Intl.DateTimeFormat(formatTag, { timeStyle: "short" }).resolvedOptions();
  return { hour: hourCycle === "h23" || hourCycle === "h24" ? "2-digit" : "numeric", minute: "2-digit" };
}

export function createI18n(preferred: readonly string[], options: I18nOptions = {}): I18n {
  const { locale, formatTag } = pickLocale(preferred);
  const dictionary: Dictionary = dictionaries[locale];
  const numberFormat = new Intl.NumberFormat(formatTag);
  const zone = options.timeZone === undefined ? {} : { timeZone: options.timeZone };
  const time = timeParts(formatTag);
  const dateTimeFormat = new Intl.DateTimeFormat(formatTag, {
    ...DATE_PARTS,
    ...time,
    timeZoneName: "shortOffset",
    ...zone,
  });
  const shortDateFormat = new Intl.DateTimeFormat(formatTag, { ...DATE_PARTS, ...zone });
  const pluralRules = new Intl.PluralRules(locale);
  const preciseFormat = new Intl.DateTimeFormat(formatTag, {
    ...DATE_PARTS,
    ...time,
    second: "2-digit",
    fractionalSecondDigits: 3,
    timeZoneName: "shortOffset",
    ...zone,
  });
  const axisTimeFormat = new Intl.DateTimeFormat(formatTag, { ...time, ...zone });
  // A day bucket is a UTC day: its date is the UTC one, wherever the user is.
  const utcDayFormat = new Intl.DateTimeFormat(formatTag, { ...DATE_PARTS, timeZone: "UTC" });
  const axisUtcDayFormat = new Intl.DateTimeFormat(formatTag, { day: "numeric", month: "short", timeZone: "UTC" });
  const formatDateTime = (epochMs: number): string => dateTimeFormat.format(new Date(epochMs));
  const relativeFormat = new Intl.RelativeTimeFormat(formatTag, { numeric: "auto" });

  const formatNumber = (value: number): string => numberFormat.format(value);

  const t: Translate = (key, ...args) => {
    const message = dictionary[key];
    const params: Record<string, string | number> | undefined = args[0];
    if (params === undefined) return message;
    return message.replace(/\{(\w+)\}/g, (whole, name: string) => {
      const value = params[name];
      if (value === undefined) return whole;
      return typeof value === "number" ? formatNumber(value) : value;
    });
  };

  return {
    locale,
    formatTag,
    t,
    formatNumber,
    plural: (count) => pluralFormOf(pluralRules.select(count)),
    formatDateTime,
    formatDateShort: (epochMs) => shortDateFormat.format(new Date(epochMs)),
    formatDateTimePrecise: (epochMs) => preciseFormat.format(new Date(epochMs)),
    formatAxisTime: (epochMs) => axisTimeFormat.format(new Date(epochMs)),
    formatUtcDay: (epochMs) => utcDayFormat.format(new Date(epochMs)),
    formatAxisUtcDay: (epochMs) => axisUtcDayFormat.format(new Date(epochMs)),
    formatDateTimeShort: formatDateTime,
    formatTime: formatDateTime,
    formatAge: (epochMs, nowMs) => formatAge(relativeFormat, epochMs, nowMs),
  };
}

/** CLDR's category as one the catalogues write: zero and two (no language here has them) read as other. */
function pluralFormOf(category: Intl.LDMLPluralRule): PluralForm {
  return category === "one" || category === "few" || category === "many" ? category : "other";
}

const AGE_UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/** The largest whole unit that fits; under a minute reads as "now" (clocks disagree by seconds). */
function formatAge(format: Intl.RelativeTimeFormat, epochMs: number, nowMs: number): string {
  const elapsed = Math.max(0, nowMs - epochMs);
  for (const [unit, size] of AGE_UNITS) {
    if (elapsed >= size) return format.format(-Math.floor(elapsed / size), unit);
  }
  return format.format(0, "second");
}
