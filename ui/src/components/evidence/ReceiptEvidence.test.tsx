// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { Stat } from "../../bindings/Stat";
import { createI18n } from "../../i18n/i18n";
import { byTestId, queryTestId, render, type Rendered } from "../../test/dom";
import { receipt } from "../../test/fixtures";
import { messageStateMeaning, messageStateName, statMeaning } from "./receiptCodes";
import { ReceiptEvidence } from "./ReceiptEvidence";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const text = (root: HTMLElement, id: string): string | null => byTestId(root, id).textContent;

describe("the codes in a receipt, explained", () => {
  it("says what the status word, err and message_state mean, next to the values as received", async () => {
    view = await render(<ReceiptEvidence receipt={receipt(1, { stat: "UNDELIV", stat_raw: "UNDELIV", err: "001", message_state: 5 })} />);
    const root = view.container;
    expect(text(root, "receipt-stat")).toBe("UNDELIV — it could not be delivered (a final failure)");
    expect(text(root, "receipt-err")).toBe(
      "001 — the provider’s own network error code, shown as given: its meaning is in the provider’s documentation",
    );
    expect(text(root, "receipt-message-state")).toBe("5 UNDELIVERABLE — it could not be delivered (a final failure)");
    expect(root.textContent, "labels say what the field is").toContain("Status word (stat)");
  });

  it("reads err 000 as no error, and a word or state SMPP does not define as saying nothing", async () => {
    view = await render(
      <ReceiptEvidence receipt={receipt(1, { stat: null, stat_raw: "WEIRD", status_unreadable: true, err: "000", message_state: 12 })} />,
    );
    const root = view.container;
    expect(text(root, "receipt-err")).toBe("000 — no error");
    expect(text(root, "receipt-stat")).toBe("WEIRD — not a status word SMPP defines: this report says nothing of the state");
    expect(text(root, "receipt-message-state")).toBe("12 — not a state SMPP 3.4 defines (1 to 9)");
  });

  it("shows nothing for fields the receipt did not carry", async () => {
    view = await render(<ReceiptEvidence receipt={receipt(1, { stat: null, stat_raw: null, err: null, message_state: null })} />);
    expect(queryTestId(view.container, "receipt-stat")).toBeNull();
    expect(queryTestId(view.container, "receipt-err")).toBeNull();
    expect(queryTestId(view.container, "receipt-message-state")).toBeNull();
  });

  it("speaks French and Russian", async () => {
    view = await render(<ReceiptEvidence receipt={receipt(1, { err: "000" })} />, ["fr-FR"]);
    expect(text(view.container, "receipt-stat")).toBe("DELIVRD — signalé remis au téléphone par le réseau");
    expect(text(view.container, "receipt-err")).toBe("000 — aucune erreur");
    await view.unmount();
    view = await render(<ReceiptEvidence receipt={receipt(1, { err: "042" })} />, ["ru-RU"]);
    expect(text(view.container, "receipt-stat")).toBe("DELIVRD — сеть сообщает, что оно доставлено на телефон");
    expect(text(view.container, "receipt-message-state")).toBe("2 DELIVERED — сеть сообщает, что оно доставлено на телефон");
    expect(text(view.container, "receipt-err-meaning")).toContain("провайдера");
  });

  it("names every message_state of SMPP 3.4 §5.2.28 and explains each with its status word", () => {
    const t = createI18n(["en-US"]).t;
    const names = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(messageStateName);
    expect(names).toEqual(["ENROUTE", "DELIVERED", "EXPIRED", "DELETED", "UNDELIVERABLE", "ACCEPTED", "UNKNOWN", "REJECTED", "SKIPPED"]);
    expect([0, 10, 2.5].map(messageStateName)).toEqual([null, null, null]);
    const words: Stat[] = ["ENROUTE", "DELIVRD", "EXPIRED", "DELETED", "UNDELIV", "ACCEPTD", "UNKNOWN", "REJECTD", "SKIPPED"];
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => messageStateMeaning(n, t))).toEqual(words.map((w) => statMeaning(w, t)));
    expect(new Set(words.map((w) => statMeaning(w, t))).size, "each word its own meaning").toBe(words.length);
  });
});
