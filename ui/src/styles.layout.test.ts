// @vitest-environment happy-dom
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Layout cannot be measured here (no layout engine): these check the rules that keep the dashboard
// within the window's width, at 1024 and 1366 px as in a narrow window.
const SRC = resolve(process.cwd(), "src");
let style: HTMLStyleElement;
beforeAll(() => {
  style = document.createElement("style");
  style.textContent = readFileSync(join(SRC, "styles.css"), "utf8");
  document.head.append(style);
});
afterAll(() => style.remove());

type Props = "position" | "width" | "height" | "overflow" | "overflowX" | "clipPath" | "minWidth" | "gridTemplateColumns";

/** The computed values of an element with these classes (read while it is in the document). */
function computed(className: string): Record<Props, string> {
  const element = document.createElement("div");
  element.className = className;
  document.body.append(element);
  const s = getComputedStyle(element);
  const { position, width, height, overflow, overflowX, clipPath, minWidth, gridTemplateColumns } = s;
  element.remove();
  return { position, width, height, overflow, overflowX, clipPath, minWidth, gridTemplateColumns };
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".tsx") && !e.name.endsWith(".test.tsx") ? [join(dir, e.name)] : [],
  );
}

describe("the dashboard never scrolls sideways", () => {
  it("hides content in a box of 1px that clips what it holds", () => {
    const box = computed("visually-hidden");
    expect([box.position, box.width, box.height, box.overflow, box.clipPath]).toEqual(["absolute", "1px", "1px", "hidden", "inset(50%)"]);
  });

  it("never puts that class on a table, which would be as wide as its content", () => {
    const offenders = sources(SRC).filter((file) => /<table\b[^>]*className="[^"]*\bvisually-hidden\b/.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("lets its grids of cards and charts fall to one column rather than ask for more than the panel", () => {
    expect(computed("dashboard-grid").gridTemplateColumns).toBe("repeat(auto-fit, minmax(min(100%, 16rem), 1fr))");
    expect(computed("charts-grid").gridTemplateColumns).toBe("repeat(auto-fit, minmax(min(100%, 30rem), 1fr))");
    expect(computed("chart").minWidth, "a chart card may shrink below its plot").toMatch(/^0(px)?$/);
    expect(computed("chart-plot").overflowX, "a plot narrower than its labels scrolls inside its card").toBe("auto");
  });
});

describe("Settings never runs out of its cards", () => {
  it("gives a field one column as wide as the field, so that an input or a long word shrinks with it", () => {
    expect(computed("field").gridTemplateColumns).toBe("minmax(0, 1fr)");
  });

  it("lets a fieldset of settings shrink below its content, as a fieldset does not by default", () => {
    expect(computed("settings-kind").minWidth).toMatch(/^0(px)?$/);
  });
});
