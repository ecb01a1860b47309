import { useEffect, useRef, useState, type ReactNode } from "react";

/**
 * A box that scrolls when what it holds is wider (or taller) than it: a table, a chart at phone
 * width. While it scrolls, it takes the keyboard's focus, so that its hidden part can be reached
 * with the arrow keys (WCAG 2.1.1, axe's `scrollable-region-focusable`); when everything shows,
 * it is no stop for the Tab key.
 */
export function ScrollArea({ className = "table-scroll", children }: { className?: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const box = ref.current;
    if (box === null) return undefined;
    const measure = (): void => setScrolls(box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight);
    measure();
    if (typeof ResizeObserver === "undefined") return undefined;
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    for (const child of Array.from(box.children)) observer.observe(child);
    return () => observer.disconnect();
  }, []);
  return (
    <div ref={ref} className={className} tabIndex={scrolls ? 0 : undefined} data-scrolls={scrolls ? "true" : undefined}>
      {children}
    </div>
  );
}
