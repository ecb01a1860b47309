// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { MessageRecord } from "../../bindings/MessageRecord";
import { createI18n } from "../../i18n/i18n";
import { byTestId, render, type Rendered } from "../../test/dom";
import { deliveredDetail } from "../../test/fixtures";
import { MessageHeader, originWords } from "./MessageHeader";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const base = deliveredDetail().message;
const record = (over: Partial<MessageRecord>): MessageRecord => ({ ...base, api_key_id: null, api_key_name: null, ...over });

describe("where a message came from, and who handed it in", () => {
  it("says who composed it, imported it, or which key sent it, in the header", async () => {
    view = await render(<MessageHeader detail={{ ...deliveredDetail(), message: record({ channel: "compose", submitted_by: "Marie" }) }} />);
    expect(byTestId(view.container, "detail-origin").textContent).toBe("Composed by Marie");
    const t = createI18n(["en-US"]).t;
    expect(originWords(record({ channel: "csv", submitted_by: "Marie" }), t)).toBe("Imported from CSV by Marie");
    expect(originWords(record({ channel: "api", submitted_by: "website", api_key_id: 2, api_key_name: "website" }), t)).toBe(
      "API key website",
    );
    expect(originWords(record({ channel: "cli", submitted_by: "ann" }), t)).toBe("From the command line, by ann");
  });

  it("says the channel as before for a message handed in before people were recorded", () => {
    const t = createI18n(["en-US"]).t;
    expect(originWords(record({ channel: "compose", submitted_by: null }), t)).toBe("this app’s form");
    expect(originWords(record({ channel: "csv", submitted_by: null }), t)).toBe("a CSV import");
    expect(originWords(record({ channel: "api", submitted_by: null, api_key_id: 2, api_key_name: "crm" }), t), "its key is still known").toBe(
      "API key crm",
    );
    expect(originWords(record({ channel: "api", submitted_by: null }), t)).toBe("the HTTP API");
  });

  it("speaks French and Russian", () => {
    const marie = record({ channel: "compose", submitted_by: "Marie" });
    expect(originWords(marie, createI18n(["fr-FR"]).t)).toBe("Rédigé par Marie");
    expect(originWords(marie, createI18n(["ru-RU"]).t)).toBe("Написано: Marie");
    expect(originWords(record({ channel: "csv", submitted_by: "Marie" }), createI18n(["fr-FR"]).t)).toBe("Importé d’un fichier CSV par Marie");
  });
});
