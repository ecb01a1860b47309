// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { useState } from "react";
import { byTestId, render, type, type Rendered } from "../test/dom";
import { datePattern, localToRfc3339, readTyped, showTyped } from "../views/localTime";
import { DateTimeField } from "./DateTimeField";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const NAMES = { day: "jj", month: "mm", year: "aaaa", hour: "hh", minute: "mm" };

describe("dates as people type them", () => {
  it("reads dd/mm/yyyy in French, mm/dd/yyyy in American English, dd.mm.yyyy in Russian", () => {
    expect(readTyped("31/12/2026 09:30", "fr-FR", true)).toBe("2026-12-31T09:30");
    expect(readTyped("1/2/2026 9:05", "fr-FR", true), "the 1st of February").toBe("2026-02-01T09:05");
    expect(readTyped("12/31/2026 9:30 PM", "en-US", true)).toBe("2026-12-31T21:30");
    expect(readTyped("12/31/2026 12:10 am", "en-US", true)).toBe("2026-12-31T00:10");
    expect(readTyped("31.12.2026", "ru-RU", false)).toBe("2026-12-31");
    expect(readTyped("2026-12-31 09:30", "fr-FR", true), "the ISO form is read too").toBe("2026-12-31T09:30");
    expect(readTyped("  ", "fr-FR", true)).toBe("");
  });

  it("refuses what is no date: a day that does not exist, a missing time, words, a short year", () => {
    expect(readTyped("31/02/2026 09:30", "fr-FR", true)).toBeNull();
    expect(readTyped("31/12/2026", "fr-FR", true), "a moment needs its time").toBeNull();
    expect(readTyped("31/12/2026 25:00", "fr-FR", true)).toBeNull();
    expect(readTyped("demain 9h", "fr-FR", true)).toBeNull();
    expect(readTyped("31/12/26", "fr-FR", false)).toBeNull();
    expect(readTyped("31/12/2026 09:30", "fr-FR", false), "a day field takes no time").toBeNull();
    expect(localToRfc3339("31/12/2026 09:30"), "only the canonical form is a moment").toBeNull();
    expect(localToRfc3339("2026-02-30T09:30")).toBeNull();
  });

  it("shows a value and its placeholder in the locale's order", () => {
    expect(showTyped("2026-12-31T09:30", "fr-FR")).toBe("31/12/2026 09:30");
    expect(showTyped("2026-12-31", "ru-RU")).toBe("31.12.2026");
    expect(showTyped("2026-12-31", "en-US")).toBe("12/31/2026");
    expect(datePattern("fr-FR", NAMES, true)).toBe("jj/mm/aaaa hh:mm");
  });
});

function Field({ withTime, onValue }: { withTime: boolean; onValue: (v: string) => void }) {
  const [value, setValue] = useState("");
  return (
    <DateTimeField
      id="when"
      withTime={withTime}
      value={value}
      onChange={(v) => {
        setValue(v);
        onValue(v);
      }}
      testId="when"
    />
  );
}

describe("DateTimeField", () => {
  it("is a text field with the locale's placeholder, giving the canonical value of what is typed", async () => {
    const values: string[] = [];
    view = await render(<Field withTime onValue={(v) => values.push(v)} />, ["fr-FR"]);
    const input = byTestId<HTMLInputElement>(view.container, "when");
    expect(input.type, "never the browser's date input").toBe("text");
    expect(input.placeholder).toBe("jj/mm/aaaa hh:mm");
    await type(input, "31/12/2026 09:30");
    expect(values.at(-1)).toBe("2026-12-31T09:30");
    expect(input.value, "what was typed stays as typed").toBe("31/12/2026 09:30");
    await type(input, "31/02/2026 09:30");
    expect(values.at(-1), "what cannot be read is given as typed").toBe("31/02/2026 09:30");
  });

  it("says the pattern in Russian", async () => {
    view = await render(<Field withTime={false} onValue={() => {}} />, ["ru-RU"]);
    expect(byTestId<HTMLInputElement>(view.container, "when").placeholder).toBe("дд.мм.гггг");
  });
});
