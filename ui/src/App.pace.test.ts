import { describe, expect, it } from "vitest";
import { sendingLink } from "./App";
import type { ConnectionStatus } from "./bindings/ConnectionStatus";
import type { LinkState } from "./bindings/LinkState";
import { IDLE_CONNECTION } from "./test/fixtures";

const DOWN: LinkState = { state: "down", error: "refused", since_ms: 1, retry_in_ms: 1_000 };
const BOUND: LinkState = { state: "bound", session_id: "backup#1@1", since_ms: 2 };
const status = (connection: string, link: LinkState): ConnectionStatus => ({
  connection,
  sandbox: false,
  link,
  binds: [],
  ...IDLE_CONNECTION,
});

describe("the link the pace speaks of", () => {
  it("is a bound connection's while any is bound, the first one's trouble otherwise", () => {
    const primary = status("primary", DOWN);
    const first = { status: "ready", data: primary } as const;
    expect(sendingLink({ status: "ready", data: [primary, status("backup", BOUND)] }, first)).toEqual(BOUND);
    expect(sendingLink({ status: "ready", data: [primary, status("backup", DOWN)] }, first)).toEqual(DOWN);
    expect(sendingLink({ status: "loading" }, first)).toEqual(DOWN);
    expect(sendingLink({ status: "loading" }, { status: "loading" })).toBeNull();
  });
});
