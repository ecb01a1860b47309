/**
 * Message templates' `{placeholders}`, read as the engine reads them (core `template.rs`): a name
 * of letters, digits, `_` and `-` (any script, at most 64 characters) between braces. Braces
 * around anything else are plain text.
 */
const PLACEHOLDER = /\{([\p{L}\p{N}_-]{1,64})\}/gu;

/** The placeholders `text` names, each once, in the order they first appear. */
export function placeholdersOf(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) {
    const name = m[1];
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * `text` with each placeholder replaced by `value(name)`; or the names without a value, each
 * once, when some have none (then nothing is filled).
 */
export function fillTemplate(
  text: string,
  value: (name: string) => string | null,
): { readonly ok: true; readonly text: string } | { readonly ok: false; readonly missing: readonly string[] } {
  const missing = placeholdersOf(text).filter((name) => value(name) === null);
  if (missing.length > 0) return { ok: false, missing };
  return { ok: true, text: text.replace(PLACEHOLDER, (_, name: string) => value(name) ?? "") };
}
