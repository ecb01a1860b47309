import { describe, expect, it } from "vitest";
import { receipt, summary, T0 } from "../../test/fixtures";
import { compareWithReceipt, echoFits, expectedIdFormat, idHint, pickerFilter, sameNumber, suggestedSearch } from "./picker";

describe("echoFits, as the engine compares a receipt's text echo", () => {
  it("fits a start cut short in any case, and accented letters as ?, their plain letter or nothing", () => {
    expect(echoFits("YOUR CODE", "Your code is 1234", false)).toBe(true);
    for (const echo of ["R?servation confirm?", "Reservation confirme", "Rservation confirm "]) {
      expect(echoFits(echo, "Réservation confirmée à 10h", false), echo).toBe(true);
    }
    expect(echoFits("Total 10? TTC", "Total 10€ TTC, merci", false)).toBe(true);
  });

  it("does not fit another text, other digits, or a later part of a message sent whole", () => {
    expect(echoFits("Your parcel is here", "Your code is 1234", false)).toBe(false);
    expect(echoFits("Code 9999", "Code 1234", false)).toBe(false);
    const body = "Your appointment is confirmed. Bring your card. See you on Tuesday.";
    expect(echoFits("Bring your card. See", body, true)).toBe(true);
    expect(echoFits("Bring your card. See", body, false)).toBe(false);
  });
});

describe("sameNumber", () => {
  it("compares digits, one ending the other, leading zeros aside", () => {
    expect(sameNumber("33612345624", "+33612345624")).toBe(true);
    expect(sameNumber("0612345624", "+33612345624")).toBe(true);
    expect(sameNumber("+4915112345678", "+33612345624")).toBe(false);
  });
});

describe("compareWithReceipt", () => {
  const r = receipt(15, {
    message_id: null,
    received_at_ms: T0 + 60_000,
    source_addr: "33612345624",
    raw_text: "id:5f2a sub:001 dlvrd:001 submit date:2611291200 done date:2611291201 stat:DELIVRD err:000 text:Your code is 4821",
  });
  const time = (ms: number) => String(ms);

  it("names every fact that agrees or differs", () => {
    const same = compareWithReceipt(r, summary(24, { destination: "+33612345624", preview: "Your code is 4821", body_chars: 17 }), time);
    expect(same.map((f) => `${f.field}:${f.verdict}`)).toEqual(["connection:agrees", "destination:agrees", "text:agrees", "time:agrees"]);
    const other = compareWithReceipt(
      r,
      summary(25, { connection: "backup", destination: "+33612345699", preview: "Your parcel is here", created_at_ms: T0 + 3_600_000 }),
      time,
    );
    expect(other.map((f) => `${f.field}:${f.verdict}`)).toEqual(["connection:differs", "destination:differs", "text:differs", "time:differs"]);
    expect(other.find((f) => f.field === "text")).toMatchObject({ receipt: "Your code is 4821", message: "Your parcel is he" });
  });

  it("cannot tell for a UCS-2 text, whose echo is not comparable", () => {
    const facts = compareWithReceipt(r, summary(26, { preview: "Votre commande est prête", encoding: "ucs2" }), time);
    expect(facts.find((f) => f.field === "text")?.verdict).toBe("unknown");
  });
});

describe("the picker's search", () => {
  it("starts from the receipt's number, in the day before it arrived", () => {
    const search = suggestedSearch(receipt(15, { source_addr: "33612345624" }));
    expect(search).toEqual({ number: "33612345624", text: "", windowHours: 24 });
    expect(pickerFilter({ ...search, text: " code " }, T0, 20)).toMatchObject({
      destination: "33612345624",
      q: "code",
      from_ms: T0 - 24 * 3_600_000,
      to_ms: T0 + 600_000,
      limit: 20,
    });
  });
});

describe("idHint", () => {
  it("says when the id looks written in the other base than the connection's", () => {
    expect(idHint("5f2a", "decimal")).toEqual({ kind: "hex_where_decimal", id: "5f2a", other: "24362" });
    expect(idHint("24362", "hex")).toEqual({ kind: "digits_where_hex", id: "24362", other: "5f2a" });
    expect(idHint("5f2a", "hex")).toBeNull();
    expect(idHint("24362", "decimal")).toBeNull();
  });

  it("judges by shape alone when the format is unknown or text, and says nothing of an id that is neither", () => {
    expect(idHint("5f2a", null)).toMatchObject({ kind: "looks_hex", other: "24362" });
    expect(idHint("24362", "text")).toMatchObject({ kind: "looks_decimal", other: "5f2a" });
    expect(idHint("msg-42", null)).toBeNull();
    expect(idHint(null, "decimal")).toBeNull();
  });

  it("reads the connection's format where the id was read", () => {
    const settings = [
      { key: "receipts.receipt_id", value: "decimal" },
      { key: "receipts.tlv_id", value: "response" },
      { key: "receipts.response_id", value: "hex" },
    ];
    expect(expectedIdFormat(settings, "text")).toBe("decimal");
    expect(expectedIdFormat(settings, "tlv")).toBe("hex");
    expect(expectedIdFormat(settings, "http")).toBeNull();
  });
});
