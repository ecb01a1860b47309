import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The theme chosen in the app must win over the system's scheme in both directions, in every
// dark rule: a rule only under `prefers-color-scheme: dark` would leave a dark corner in Light.
const css = readFileSync(new URL("./styles.css", import.meta.url), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
const DARK_MEDIA = "@media (prefers-color-scheme: dark) {";
const SYSTEM_DARK = ':not([data-theme="light"])';
const CHOSEN_DARK = '[data-theme="dark"]';

interface Rule {
  readonly selector: string;
  readonly declarations: readonly string[];
}

function rulesOf(text: string): Rule[] {
  return [...text.matchAll(/([^{}]+)\{([^{}]*)\}/g)].map((m) => ({
    selector: (m[1] ?? "").trim(),
    declarations: (m[2] ?? "")
      .split(";")
      .map((d) => d.trim().replace(/\s+/g, " "))
      .filter((d) => d !== "" && !d.startsWith("color-scheme")),
  }));
}

/** The inside of each dark media block, and the stylesheet without them. */
function split(): { dark: string[]; rest: string } {
  const dark: string[] = [];
  let rest = "";
  let at = 0;
  for (let start = css.indexOf(DARK_MEDIA); start !== -1; start = css.indexOf(DARK_MEDIA, at)) {
    let depth = 1;
    let i = start + DARK_MEDIA.length;
    for (; depth > 0; i++) depth += css[i] === "{" ? 1 : css[i] === "}" ? -1 : 0;
    rest += css.slice(at, start);
    dark.push(css.slice(start + DARK_MEDIA.length, i - 1));
    at = i;
  }
  return { dark, rest: rest + css.slice(at) };
}

describe("the stylesheet's dark theme", () => {
  const { dark, rest } = split();
  const darkRules = dark.flatMap(rulesOf);
  const outside = rulesOf(rest);

  it("has its dark rules (the tokens, the danger button, the charts)", () => {
    expect(darkRules.length).toBeGreaterThanOrEqual(3);
  });

  it("applies each system-dark rule only where Light was not chosen", () => {
    expect(darkRules.filter((r) => !r.selector.includes(SYSTEM_DARK)).map((r) => r.selector)).toEqual([]);
  });

  it("has, for each system-dark rule, the same rule for Dark chosen in the app", () => {
    for (const rule of darkRules) {
      const twin = outside.find((r) => r.selector === rule.selector.replace(SYSTEM_DARK, CHOSEN_DARK));
      expect(twin?.declarations, `the chosen-dark twin of ${rule.selector}`).toEqual(rule.declarations);
    }
  });

  it("sets color-scheme for each chosen theme, so native controls follow", () => {
    expect(css).toMatch(/:root\[data-theme="light"\]\s*\{[^}]*color-scheme:\s*light;/);
    expect(css).toMatch(/:root\[data-theme="dark"\]\s*\{[^}]*color-scheme:\s*dark;/);
  });

  it("uses no light-dark(), which the desktop window's WebKitGTK may lack", () => {
    expect(css).not.toContain("light-dark(");
  });
});
