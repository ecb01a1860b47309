// Helpers for component tests, which run in happy-dom (`// @vitest-environment happy-dom`).

import { act, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { LOCAL_ADMIN } from "../access/access";
import { AccessProvider } from "../access/context";
import type { Me } from "../bindings/Me";
import { I18nProvider } from "../i18n/context";
import { createI18n } from "../i18n/i18n";

// Tells React that updates are wrapped in act(), so it flushes them before act() returns.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export interface Rendered {
  readonly container: HTMLElement;
  unmount(): Promise<void>;
}

/**
 * Renders `ui` as the person `me` would see it (the window's admin unless a test says otherwise),
 * in the first of `languages` the UI speaks.
 */
export async function render(ui: ReactNode, languages: readonly string[] = ["en-US"], me: Me = LOCAL_ADMIN): Promise<Rendered> {
  const container = document.createElement("div");
  document.body.append(container);
  const root = createRoot(container);
  await act(async () =>
    root.render(
      <I18nProvider value={createI18n(languages)}>
        <AccessProvider me={me}>{ui}</AccessProvider>
      </I18nProvider>,
    ),
  );
  return {
    container,
    async unmount() {
      await act(async () => root.unmount());
      container.remove();
    },
  };
}

/** Types into a controlled input the way a person does: React sees an input event with the new value. */
export async function type(field: HTMLInputElement | HTMLTextAreaElement, value: string): Promise<void> {
  const prototype = field instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const setValue = Object.getOwnPropertyDescriptor(prototype, "value")?.set;
  await act(async () => {
    setValue?.call(field, value);
    field.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

export async function submit(form: HTMLFormElement): Promise<void> {
  await act(async () => {
    form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
  });
}

export async function click(element: HTMLElement): Promise<void> {
  await act(async () => element.click());
}

/** Runs `change` (if any), then lets pending promises and timers of up to `ms` settle, inside act(). */
export async function settle(change?: (() => void) | number, ms = 0): Promise<void> {
  const wait = typeof change === "number" ? change : ms;
  await act(async () => {
    if (typeof change === "function") change();
    await new Promise((resolve) => setTimeout(resolve, wait));
  });
}

export function byTestId<T extends HTMLElement = HTMLElement>(root: ParentNode, id: string): T {
  const found = root.querySelector<T>(`[data-testid="${id}"]`);
  if (found === null) throw new Error(`no element with data-testid="${id}"`);
  return found;
}

export function queryTestId(root: ParentNode, id: string): HTMLElement | null {
  return root.querySelector<HTMLElement>(`[data-testid="${id}"]`);
}
