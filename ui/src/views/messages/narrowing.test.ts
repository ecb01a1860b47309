import { describe, expect, it } from "vitest";
import { commandStatusOf, formatNarrowing, isNarrowed, narrowingFilter, parseNarrowing, without } from "./narrowing";

describe("the list narrowed from a report", () => {
  it("reads its fields and its period from the address, and writes them back", () => {
    const search = "connection=backup&outcome=failed,expired&from_ms=1763420400000&to_ms=1764025200000";
    expect(parseNarrowing(search)).toEqual({
      connection: "backup",
      outcome: "failed,expired",
      from_ms: 1763420400000,
      to_ms: 1764025200000,
    });
    expect(formatNarrowing(parseNarrowing(search))).toBe(search);
    expect(formatNarrowing({ sender: "key:3", country: "" }), "a value of none is kept").toBe("country=&sender=key:3");
  });

  it("leaves out what it does not know, and times that are not whole milliseconds", () => {
    expect(parseNarrowing("planet=mars&from_ms=yesterday&to_ms=-5")).toEqual({});
    expect(isNarrowed(parseNarrowing("planet=mars"))).toBe(false);
    expect(isNarrowed(parseNarrowing("error_code="))).toBe(true);
  });

  it("drops one chip at a time, the period as a whole", () => {
    const n = parseNarrowing("connection=backup&outcome=failed&from_ms=1&to_ms=2");
    expect(without(n, "outcome")).toEqual({ connection: "backup", from_ms: 1, to_ms: 2 });
    expect(without(n, "period")).toEqual({ connection: "backup", outcome: "failed" });
  });

  it("gives the engine a command status as a number, from decimal or hex", () => {
    expect(commandStatusOf("11")).toBe(11);
    expect(commandStatusOf("0x0000000B")).toBe(11);
    expect(commandStatusOf("")).toBeNull();
    expect(commandStatusOf("-1")).toBe(-1);
    expect(narrowingFilter(parseNarrowing("command_status=0x45&kind=otp&route=eu"))).toEqual({
      kind: "otp",
      connection: null,
      route: "eu",
      country: null,
      sender: null,
      outcome: null,
      command_status: 0x45,
      error_code: null,
    });
  });
});
