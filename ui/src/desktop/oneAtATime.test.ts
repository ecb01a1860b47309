import { describe, expect, it } from "vitest";
import { oneAtATime } from "./oneAtATime";

/** A look that waits until it is let go, counting how many began. */
function gatedLook() {
  let began = 0;
  let release: () => void = () => {};
  const look = () => {
    began += 1;
    return new Promise<void>((resolve) => (release = resolve));
  };
  return { look, began: () => began, release: () => release() };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("oneAtATime", () => {
  it("runs one look at a time, and once more after it however many calls came meanwhile", async () => {
    const g = gatedLook();
    const run = oneAtATime(g.look, () => false);
    void run();
    void run();
    void run();
    expect(g.began()).toBe(1);
    g.release();
    await tick();
    expect(g.began(), "the calls meanwhile asked for one more").toBe(2);
    g.release();
    await tick();
    expect(g.began(), "and nothing after that").toBe(2);
  });

  it("goes on after a look that failed, and runs nothing more once stopped", async () => {
    let stopped = false;
    let calls = 0;
    const run = oneAtATime(async () => {
      calls += 1;
      if (calls === 1) throw new Error("no answer");
    }, () => stopped);
    await run();
    await run();
    expect(calls).toBe(2);
    const g = gatedLook();
    const gated = oneAtATime(g.look, () => stopped);
    void gated();
    void gated();
    stopped = true;
    g.release();
    await tick();
    expect(g.began()).toBe(1);
  });
});
