// The UI's catalogues as the browser tests read them: every English sentence a screen may show, so
// a test can say that no English sentence of the catalogue is left on a French or Russian screen.
//
// The catalogues are TypeScript (ui/src/i18n/*.ts); each entry is a `"key": "message"` pair, its
// message on the same line or the next, which is all this reads.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const I18N = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../ui/src/i18n");
const ENTRY = /^\s*"([^"]+)":\s*(?:\n\s*)?"((?:[^"\\]|\\.)*)",?\s*$/gm;

async function entries(file) {
  const text = await readFile(path.join(I18N, file), "utf8");
  return new Map([...text.matchAll(ENTRY)].map((m) => [m[1], JSON.parse(`"${m[2]}"`)]));
}

/** The folders of words spread into each language's main file (the engine's codes, and each area's). */
const AREAS = ["server", "detail", "screens", "day", "reasons", "reports", "privacy", "alerts"];

/** One language's catalogue, key → message (the main file and every area's words). */
export async function catalogue(locale) {
  const parts = await Promise.all([entries(`${locale}.ts`), ...AREAS.map((area) => entries(`${area}/${locale}.ts`))]);
  return new Map(parts.flatMap((part) => [...part]));
}

/**
 * The pieces of English that would betray an untranslated sentence in `locale`: from each English
 * message that the other language words differently, its longest run of text between placeholders,
 * when that run is a phrase (three words or more) rather than a name or a unit.
 */
export async function englishTells(locale) {
  const [en, other] = await Promise.all([catalogue("en"), catalogue(locale)]);
  const tells = new Map();
  for (const [key, message] of en) {
    if (other.get(key) === message) continue;
    const longest = message
      .split(/\{\w+\}/)
      .map((s) => s.trim())
      .sort((a, b) => b.length - a.length)[0];
    if (longest !== undefined && longest.split(/\s+/).length >= 3 && longest.length >= 12) tells.set(key, longest);
  }
  if (tells.size < 300) throw new Error(`only ${tells.size} English phrases read from the catalogues: the reader is broken`);
  return tells;
}

/** The English phrases of `tells` that `text` contains, as "key: phrase". */
export function englishIn(text, tells) {
  const found = [];
  for (const [key, phrase] of tells) if (text.includes(phrase)) found.push(`${key}: ${phrase}`);
  return found;
}
