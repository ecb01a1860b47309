import { describe, expect, it } from "vitest";
import { receipt, T0 } from "../../test/fixtures";
import { expectedIdFormat, idHint, pickerFilter, suggestedSearch } from "./picker";

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
