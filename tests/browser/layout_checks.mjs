// What the layout test measures on a page, as one function the browser runs (page.evaluate sends
// its source, so it uses nothing from outside itself). It answers one line per problem:
//
// - the page scrolls sideways (the document is wider than the window), naming what sticks out;
// - two text-bearing elements of the same card overlap by more than 1 px each way;
// - a text-bearing element runs out of its card (by more than 1 px).
//
// A card is a panel, a fieldset, a notice, a step, a table cell, the header or the menu. What sits
// in a box that scrolls sideways (a wide table in its panel) is measured for overlaps only: being
// out of sight there is the point of the box. Hidden things (for screen readers only, closed
// menus, folded parts) are not measured.

export function layoutProblems() {
  const TEXT =
    "label, legend, h1, h2, h3, h4, p, .badge, button, input:not([type=hidden]), select, textarea, .hint, .setting-key, summary, a, dt, dd, th, code";
  const CARD =
    ".panel, fieldset, .notice, .settings-save-bar, .user-menu-panel, .connect-step, .app-header, .app-nav, dialog, [role=dialog], td, th, li";
  const MAX = 20;
  const problems = [];

  const describe = (el) => {
    const id = el.getAttribute("data-testid");
    const cls = typeof el.className === "string" && el.className.trim() !== "" ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
    const text = (el.innerText ?? el.value ?? "").trim().replace(/\s+/g, " ").slice(0, 40);
    return `${el.tagName.toLowerCase()}${id ? `[data-testid="${id}"]` : ""}${cls}${text ? ` "${text}"` : ""}`;
  };

  /** Hidden on purpose: clipped to nothing (for screen readers), or inside such a box. */
  const clippedAway = (el) => {
    for (let a = el; a !== null && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.clipPath !== "none" || s.clip !== "auto") return true;
    }
    return false;
  };

  const shown = (el) => {
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 2 && r.height > 2 && !clippedAway(el);
  };

  /** An element's boxes: one per line for inline text, else its border box. */
  const boxes = (el) => {
    const inline = getComputedStyle(el).display === "inline";
    return (inline ? [...el.getClientRects()] : [el.getBoundingClientRect()]).filter((r) => r.width > 0.5 && r.height > 0.5);
  };

  /** The nearest box between `el` and `card` whose content scrolls sideways. */
  const scrollsWithin = (el, card) => {
    for (let a = el.parentElement; a !== null && a !== card; a = a.parentElement) {
      const s = getComputedStyle(a).overflowX;
      if (s === "auto" || s === "scroll" || s === "hidden" || s === "clip") return true;
    }
    return false;
  };

  const scroller = document.scrollingElement;
  if (scroller.scrollWidth > window.innerWidth) {
    const wide = [...document.body.querySelectorAll("*")]
      .filter((el) => shown(el) && el.getBoundingClientRect().right > window.innerWidth + 1 && !scrollsWithin(el, document.body))
      .filter((el) => ![...el.children].some((c) => shown(c) && c.getBoundingClientRect().right > window.innerWidth + 1))
      .slice(0, 5)
      .map(describe);
    problems.push(`the page scrolls sideways (${scroller.scrollWidth} px in a window of ${window.innerWidth}); sticking out: ${wide.join("; ")}`);
  }

  const elements = [...document.body.querySelectorAll(TEXT)].filter(shown);
  const byCard = new Map();
  for (const el of elements) {
    const card = el.parentElement?.closest(CARD) ?? null;
    if (!byCard.has(card)) byCard.set(card, []);
    byCard.get(card).push(el);
  }

  for (const [card, members] of byCard) {
    const cardBox = card === null ? { left: 0, right: window.innerWidth, top: -Infinity, bottom: Infinity } : card.getBoundingClientRect();
    const measured = members.map((el) => ({ el, rects: boxes(el) }));
    for (const { el, rects } of measured) {
      if (scrollsWithin(el, card)) continue;
      const out = rects.find((r) => r.left < cardBox.left - 1 || r.right > cardBox.right + 1 || r.top < cardBox.top - 1 || r.bottom > cardBox.bottom + 1);
      if (out !== undefined) {
        const by = Math.round(Math.max(cardBox.left - out.left, out.right - cardBox.right, cardBox.top - out.top, out.bottom - cardBox.bottom));
        problems.push(`${describe(el)} runs ${by} px out of ${card === null ? "the window" : describe(card).slice(0, 80)}`);
      }
    }
    for (let i = 0; i < measured.length; i++) {
      for (let j = i + 1; j < measured.length; j++) {
        const a = measured[i];
        const b = measured[j];
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
        const overlap = a.rects.some((ra) =>
          b.rects.some(
            (rb) => Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left) > 1 && Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top) > 1,
          ),
        );
        if (overlap) problems.push(`${describe(a.el)} overlaps ${describe(b.el)}`);
      }
    }
  }
  return problems.length > MAX ? [...problems.slice(0, MAX), `… and ${problems.length - MAX} more`] : problems;
}
