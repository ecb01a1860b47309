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
 * none has any. What a placeholder's name may be is the engine's rule: the names are those the
 * engine read in each template (`Template.placeholders`), looked for as written, in braces.
 */
export function unfilledIn(text: string, templates: readonly Template[]): Unfilled | null {
  let best: Unfilled | null = null;
  for (const template of templates) {
    const names = template.placeholders.filter((name) => text.includes(`{${name}}`));
    if (names.length > 0 && (best === null || names.length > best.names.length)) best = { template, names };
  }
  return best;
}
