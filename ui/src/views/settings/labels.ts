import type { Translate } from "../../i18n/i18n";
import { en, type MessageKey } from "../../i18n/en";

/** A setting's name in the reader's language; its config key where none is written. */
export function settingLabel(t: Translate, key: string): string {
  const id = `setting.${key}`;
  return id in en ? t(id as MessageKey & `setting.${string}`) : key;
}

/**
 * A choice's meaning in the reader's language (SMPP versions stay as written). A setting may word
 * a choice its own way (`settings.choice.<key>.<choice>`) where the shared word would not fit it:
 * SMTP's "none" is no encryption, a receipt request's "none" no receipt.
 */
export function choiceLabel(t: Translate, choice: string, key?: string): string {
  const own = `settings.choice.${key}.${choice}`;
  if (key !== undefined && own in en) return t(own as MessageKey & `settings.choice.${string}`);
  const id = `settings.choice.${choice}`;
  return id in en ? t(id as MessageKey & `settings.choice.${string}`) : choice;
}

/** What a setting means for a person choosing its value, where a sentence is written; else null. */
export function settingHelp(t: Translate, key: string): string | null {
  const id = `settingHelp.${key}`;
  return id in en ? t(id as MessageKey & `settingHelp.${string}`) : null;
}
