import { languageOf, LOCALES, type Locale } from "../i18n/i18n";

/**
 * How the screens look for one person: a language and a theme, each either chosen in the app or
 * left to the system (the browser's languages, the system's light or dark scheme).
 */
export type LanguageChoice = Locale | "system";
export type ThemeChoice = "light" | "dark" | "system";

export interface DisplayChoice {
  readonly language: LanguageChoice;
  readonly theme: ThemeChoice;
}

export const FOLLOW_SYSTEM: DisplayChoice = { language: "system", theme: "system" };
export const THEMES: readonly ThemeChoice[] = ["system", "light", "dark"];

/** Each language as it names itself, so a person finds theirs whatever the screen shows. */
export const LANGUAGE_NAMES: Readonly<Record<Locale, string>> = { en: "English", fr: "Français", ru: "Русский" };

/**
 * Where a choice is kept in the browser's storage: one key per account (`smsdesk.display.<account>`),
 * and `smsdesk.display` for the last choice made on this browser, which the screens follow
 * until someone is signed in (the sign-in screen, the first paint).
 */
export function storageKey(account: string | null): string {
  return account === null ? "smsdesk.display" : `smsdesk.display.${account}`;
}

function isLanguage(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

function isTheme(value: unknown): value is "light" | "dark" {
  return value === "light" || value === "dark";
}

/** The choice kept for `account` (null: this browser's last one); what is missing or unreadable follows the system. */
export function readChoice(storage: Storage | null, account: string | null): DisplayChoice {
  let raw: string | null = null;
  try {
    raw = storage?.getItem(storageKey(account)) ?? null;
  } catch {
    // Storage refused (private mode, a policy): the system's choice it is.
  }
  if (raw === null) return FOLLOW_SYSTEM;
  let kept: unknown;
  try {
    kept = JSON.parse(raw);
  } catch {
    return FOLLOW_SYSTEM;
  }
  if (typeof kept !== "object" || kept === null) return FOLLOW_SYSTEM;
  const { language, theme } = kept as Record<string, unknown>;
  return { language: isLanguage(language) ? language : "system", theme: isTheme(theme) ? theme : "system" };
}

/** Whether `account` (null: this browser) has a choice of its own kept. */
export function hasChoice(storage: Storage | null, account: string | null): boolean {
  try {
    return storage?.getItem(storageKey(account)) != null;
  } catch {
    return false;
  }
}

/** Keeps `choice` for `account`; following the system in both removes what was kept. */
export function writeChoice(storage: Storage | null, account: string | null, choice: DisplayChoice): void {
  const key = storageKey(account);
  const kept: Record<string, string> = {};
  if (choice.language !== "system") kept["language"] = choice.language;
  if (choice.theme !== "system") kept["theme"] = choice.theme;
  try {
    if (Object.keys(kept).length === 0) storage?.removeItem(key);
    else storage?.setItem(key, JSON.stringify(kept));
  } catch {
    // Not kept (storage full or refused): the choice still applies until the page is left.
  }
}

/**
 * The languages to pick the UI's from: the system's, or the chosen one — with the system's region
 * when it has that language (French chosen on a `fr-CA` system keeps Canadian dates).
 */
export function preferredLanguages(language: LanguageChoice, system: readonly string[]): readonly string[] {
  if (language === "system") return system;
  return [system.find((tag) => languageOf(tag) === language) ?? language];
}

/** Puts the theme on the page: `data-theme` on `<html>`, absent when the system decides. */
export function applyTheme(root: HTMLElement, theme: ThemeChoice): void {
  if (theme === "system") delete root.dataset["theme"];
  else root.dataset["theme"] = theme;
}

/** The browser's `localStorage`, or null where it is refused (some privacy settings throw on access). */
export function browserStorage(w: Window): Storage | null {
  try {
    return w.localStorage;
  } catch {
    return null;
  }
}
