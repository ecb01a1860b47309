// @vitest-environment happy-dom
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { byTestId, render, settle, type Rendered } from "../../test/dom";
import { CountryStep } from "./CountryStep";

let view: Rendered | undefined;
let restore: (() => void) | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  restore?.();
  restore = undefined;
});

function languages(list: readonly string[]): void {
  const own = Object.getOwnPropertyDescriptor(navigator, "languages");
  Object.defineProperty(navigator, "languages", { value: list, configurable: true });
  restore = () => {
    if (own === undefined) delete (navigator as { languages?: readonly string[] }).languages;
    else Object.defineProperty(navigator, "languages", own);
  };
}

/** The guide's edits of the country, as the guide keeps them. */
function Guide({ saved, edits }: { saved: string; edits: (string | undefined)[] }) {
  const [edited, setEdited] = useState<string | undefined>(undefined);
  edits.push(edited);
  return (
    <ol>
      <CountryStep saved={saved} edited={edited} onChange={setEdited} errors={[]} />
    </ol>
  );
}

describe("the connect guide's country step", () => {
  it("suggests the browser's country while none is saved, as an edit the switch saves", async () => {
    languages(["fr-FR"]);
    const edits: (string | undefined)[] = [];
    view = await render(<Guide saved="" edits={edits} />, ["fr-FR"]);
    await settle();
    expect(edits.at(-1)).toBe("FR");
    const picker = byTestId<HTMLSelectElement>(view.container, "connect-country");
    expect(picker.value).toBe("FR");
    expect(byTestId(view.container, "connect-step-country").querySelector("h3")?.textContent).toBe("Le pays du cabinet");
  });

  it("keeps the saved country and suggests nothing", async () => {
    languages(["fr-FR"]);
    const edits: (string | undefined)[] = [];
    view = await render(<Guide saved="DE" edits={edits} />);
    await settle();
    expect(edits.at(-1)).toBeUndefined();
    expect(byTestId<HTMLSelectElement>(view.container, "connect-country").value).toBe("DE");
  });
});
