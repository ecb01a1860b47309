import { describe, expect, it } from "vitest";
import { FakeBackend } from "../test/fakeBackend";
import { shareSubscription } from "./sharedBackend";

describe("shareSubscription", () => {
  it("serves every listener from one subscription, opened with the first and closed with the last", async () => {
    const inner = new FakeBackend();
    const shared = shareSubscription(inner);
    const seen: string[] = [];
    const stopA = shared.subscribe((e) => seen.push(`a:${e.entity}`), () => seen.push("a:resync"));
    const stopB = shared.subscribe((e) => seen.push(`b:${e.entity}`), () => seen.push("b:resync"));
    expect(inner.subscribers, "one underlying subscription").toBe(1);

    inner.resync();
    inner.emit({ entity: "message", id: 1 });
    expect(seen).toEqual(["a:resync", "b:resync", "a:message", "b:message"]);

    stopA();
    inner.emit({ entity: "queue", id: 1 });
    expect(seen.at(-1)).toBe("b:queue");
    expect(seen.filter((s) => s === "a:queue")).toEqual([]);
    expect(inner.subscribers).toBe(1);
    stopB();
    expect(inner.subscribers, "nothing keeps listening once every view left").toBe(0);
  });

  it("tells a listener joining a live stream to resync, since it may have missed changes", async () => {
    const inner = new FakeBackend();
    const shared = shareSubscription(inner);
    const stopA = shared.subscribe(() => {}, () => {});
    inner.resync();
    let resyncs = 0;
    const stopB = shared.subscribe(() => {}, () => resyncs++);
    await Promise.resolve();
    expect(resyncs).toBe(1);
    stopA();
    stopB();
  });

  it("passes every operation through", async () => {
    const inner = new FakeBackend();
    const shared = shareSubscription(inner);
    await expect(shared.message(3)).rejects.toMatchObject({ code: "not_stubbed" });
    await expect(shared.resolve(1, { action: "dismiss", note: "n" })).rejects.toMatchObject({ code: "not_stubbed" });
    expect(inner.calls).toEqual(["message", "resolve"]);
  });
});
