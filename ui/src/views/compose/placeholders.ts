import type { FieldError } from "../../bindings/FieldError";
import type { Template } from "../../bindings/Template";

/** The engine's words for the placeholders of a template left without a value. */
export function missingPlaceholders(errors: readonly FieldError[]): string[] {
  return errors.flatMap((e) => (e.code === "template_value_missing" && e.params["placeholder"] !== undefined ? [e.params["placeholder"]] : []));
}

/** A free text still holding `{placeholders}` of one of the office's templates: which template, and which of its names. */
export interface Unfilled {
  readonly template: Template;
  readonly names: readonly string[];
}

/**
 * Whether a text written by hand still holds a `{placeholder}` of a known template (it was
 * pasted, or written from one): the template with the most of its names in the text; null when
 * none has any.
 */
export function unfilledIn(text: string, templates: readonly Template[]): Unfilled | null {
  const written = new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? ""));
  if (written.size === 0) return null;
  let best: Unfilled | null = null;
  for (const template of templates) {
    const names = template.placeholders.filter((name) => written.has(name));
    if (names.length > 0 && (best === null || names.length > best.names.length)) best = { template, names };
  }
  return best;
}
