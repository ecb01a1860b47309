import { describe, expect, it } from "vitest";
import type { Template } from "../../bindings/Template";
import { T0 } from "../../test/fixtures";
import { unfilledIn } from "./placeholders";

/** A template as the engine lists it: `placeholders` are the names the engine read in its text. */
function template(id: number, name: string, text: string, placeholders: string[]): Template {
  return { id, name, text, placeholders, created_at_ms: T0, created_by: "Olga" };
}

describe("a written text holding a template's placeholders", () => {
  it("finds the names the engine read, whatever their letters: a hyphen, Cyrillic, accents", () => {
    const templates = [
      template(1, "Rappel", "Bonjour {prénom}, rendez-vous le {date-rdv}.", ["prénom", "date-rdv"]),
      template(2, "Код", "{имя}, ваш код {код}", ["имя", "код"]),
    ];
    expect(unfilledIn("Bonjour {prénom}, rendez-vous le {date-rdv}.", templates)).toEqual({ template: templates[0], names: ["prénom", "date-rdv"] });
    expect(unfilledIn("Здравствуйте, {имя}!", templates)).toEqual({ template: templates[1], names: ["имя"] });
  });

  it("names the template with the most of its placeholders in the text", () => {
    const templates = [template(1, "One", "{a} {b}", ["a", "b"]), template(2, "Two", "{a} {b} {c}", ["a", "b", "c"])];
    expect(unfilledIn("{a} {b} {c}", templates)?.template.name).toBe("Two");
    expect(unfilledIn("only {a}", templates)?.names).toEqual(["a"]);
  });

  it("is null for a text without any known placeholder, even with braces of its own", () => {
    const templates = [template(1, "Rappel", "Bonjour {name}", ["name"])];
    expect(unfilledIn("Bonjour Anne", templates)).toBeNull();
    expect(unfilledIn("Prix {total} €, {name }", templates)).toBeNull();
    expect(unfilledIn("Bonjour {name}", [])).toBeNull();
  });
});
