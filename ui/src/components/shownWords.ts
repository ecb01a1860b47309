import type { I18n } from "../i18n/i18n";

/** How many rows a list shows, in the form its count needs ("1 affiché", "3 affichés"). */
export function shownWords(count: number, i18n: Pick<I18n, "t" | "plural">): string {
  return i18n.t(`list.shown.${i18n.plural(count)}`, { count });
}
