import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../bindings/operations";
import { FakeBackend } from "../test/fakeBackend";
import { shareSubscription } from "./sharedBackend";

/** A backend seen as its methods by name. */
type Methods = Record<string, ((...args: unknown[]) => Promise<unknown>) | undefined>;

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

  it("passes every operation of the catalogue through, with its arguments and its answer", async () => {
    const inner = new FakeBackend();
    const names = Object.keys(OPERATIONS);
    const got: [string, unknown[]][] = [];
    for (const name of names) {
      (inner as unknown as Methods)[name] = (...args: unknown[]) => {
        got.push([name, args]);
        return Promise.resolve(`${name} answered`);
      };
    }
    const shared = shareSubscription(inner) as unknown as Methods;
    for (const name of names) {
      expect(typeof shared[name], `${name} is forwarded`).toBe("function");
      await expect(shared[name]!(7, "two"), name).resolves.toBe(`${name} answered`);
    }
    expect(got, "each operation reached the backend once, with its arguments").toEqual(
      names.map((name) => [name, [7, "two"]]),
    );
  });

  it("forwards every method a backend has, the catalogue's and those that differ by transport", async () => {
    const inner = new FakeBackend();
    const methods = Object.keys(inner).filter((k) => typeof (inner as unknown as Record<string, unknown>)[k] === "function");
    expect(methods, "the transport's own methods are there too").toEqual(
      expect.arrayContaining([...Object.keys(OPERATIONS), "exportMessages", "saveOptOuts", "saveCsv", "saveJson"]),
    );
    const shared = shareSubscription(inner) as unknown as Methods;
    for (const name of methods) {
      await expect(shared[name]?.(), `${name} is forwarded`).rejects.toMatchObject({ code: "bad_response" });
    }
    expect(inner.calls).toEqual(methods);
  });

  it("saves JSON only where the backend does (a browser; the window's shell writes CSV alone)", () => {
    const inner = new FakeBackend();
    expect(typeof shareSubscription(inner).saveJson).toBe("function");
    delete inner.saveJson;
    expect(shareSubscription(inner).saveJson).toBeUndefined();
  });

  it("passes a rejection through as it is", async () => {
    const inner = new FakeBackend();
    const shared = shareSubscription(inner);
    await expect(shared.message(3)).rejects.toMatchObject({ code: "bad_response", message: expect.stringContaining("no answer in this test") });
    await expect(shared.resolve(1, { action: "dismiss", note: "n" })).rejects.toMatchObject({ code: "bad_response", message: expect.stringContaining("no answer in this test") });
    expect(inner.calls).toEqual(["message", "resolve"]);
  });

  it("passes an export through with its progress and cancel signal", async () => {
    const inner = new FakeBackend();
    const controller = new AbortController();
    const progress: unknown[] = [];
    inner.exportMessages = (filter, options) => {
      options?.onProgress?.({ done: 1, total: 2 });
      return Promise.resolve(options?.signal === controller.signal && filter.kind === "otp" ? 2 : -1);
    };
    const filter = {
      status: null,
      state: null,
      kind: "otp" as const,
      channel: null,
      destination: null,
      q: null,
      from_ms: null,
      to_ms: null,
      connection: null,
      route: null,
      country: null,
      sender: null,
      outcome: null,
      command_status: null,
      error_code: null,
      cursor: null,
      limit: null,
    };
    const shared = shareSubscription(inner);
    await expect(
      shared.exportMessages(filter, { signal: controller.signal, onProgress: (p) => progress.push(p) }),
    ).resolves.toBe(2);
    expect(progress).toEqual([{ done: 1, total: 2 }]);
  });
});
