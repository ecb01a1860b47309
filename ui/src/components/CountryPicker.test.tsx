// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { byTestId, render, type Rendered } from "../test/dom";
import { countriesIn, isPhoneRegion, PHONE_REGIONS, suggestedCountry } from "./countries";
import { CountryPicker } from "./CountryPicker";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

describe("suggestedCountry", () => {
  it("takes the region of the first preferred language that names one", () => {
    expect(suggestedCountry(["fr-FR"])).toBe("FR");
    expect(suggestedCountry(["fr", "en-GB"])).toBe("GB");
    expect(suggestedCountry(["ru_RU"])).toBe("RU");
    expect(suggestedCountry(["en", "de"])).toBeNull();
    expect(suggestedCountry(["es-419"]), "a region that is no country").toBeNull();
    expect(suggestedCountry([])).toBeNull();
  });
});

describe("the countries", () => {
  it("are the regions the numbering data knows, named and sorted in the reader's language", () => {
    expect(PHONE_REGIONS).toHaveLength(245);
    expect(isPhoneRegion(" fr ")).toBe(true);
    expect(isPhoneRegion("XX")).toBe(false);
    const fr = countriesIn("fr-FR");
    expect(fr.find((c) => c.code === "DE")?.name).toBe("Allemagne");
    const names = fr.map((c) => c.name);
    expect(names, "in French alphabetical order").toEqual([...names].sort(new Intl.Collator("fr-FR").compare));
    expect(names.indexOf("Égypte"), "É sorts with E, not after Z").toBeLessThan(names.indexOf("Espagne"));
    expect(countriesIn("ru-RU").find((c) => c.code === "FR")?.name).toBe("Франция");
  });
});

describe("CountryPicker", () => {
  it("offers none and every country, keeps a code it does not list, and shows the engine's refusal", async () => {
    view = await render(
      <CountryPicker
        value="zz"
        onChange={() => {}}
        errors={[{ field: "country", code: "unknown_country", params: {}, message: "unknown" }]}
      />,
      ["ru-RU"],
    );
    const select = byTestId<HTMLSelectElement>(view.container, "country-picker");
    expect(select.options).toHaveLength(247);
    expect(select.options[0]?.textContent).toBe("Не выбрана: каждый номер нужно писать с кодом страны");
    expect(select.value).toBe("ZZ");
    expect(select.getAttribute("aria-invalid")).toBe("true");
    expect(byTestId(view.container, "country-picker-errors").textContent).toBe(
      "Такой страны нет в данных о нумерации: выберите страну из списка.",
    );
  });
});
