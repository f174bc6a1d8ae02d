import { afterEach, describe, expect, it } from "vitest";
import { isStillAhead, nodeSetImmediate, thisTurnsCheckPhase } from "./event-loop";

const NEXT_ORIGINALS = Symbol.for("next.fast-set-immediate.originals");

describe("the event loop's check phase", () => {
  afterEach(() => {
    delete (globalThis as Record<symbol, unknown>)[NEXT_ORIGINALS];
  });

  it("is one promise for everyone in a turn, still ahead until it comes, and a new one in the next turn", async () => {
    const first = thisTurnsCheckPhase();
    expect(thisTurnsCheckPhase()).toBe(first);
    expect(isStillAhead(first)).toBe(true);
    await first;
    expect(isStillAhead(first)).toBe(false);
    const next = thisTurnsCheckPhase();
    expect(next).not.toBe(first);
    expect(isStillAhead(next)).toBe(true);
    await next;
  });

  it("comes in the check phase: after what is already queued there, not in this turn's microtasks", async () => {
    const order: string[] = [];
    nodeSetImmediate()(() => order.push("queued before"));
    const phase = thisTurnsCheckPhase().then(() => order.push("check phase"));
    void Promise.resolve().then(() => order.push("microtask"));
    await phase;
    expect(order.indexOf("microtask")).toBe(0);
    expect(order.indexOf("queued before")).toBeLessThan(order.indexOf("check phase"));
  });

  it("uses the event loop's own setImmediate, not one Next.js put in its place", async () => {
    let nextsCalls = 0;
    (globalThis as Record<symbol, unknown>)[NEXT_ORIGINALS] = { setImmediate };
    const original = globalThis.setImmediate;
    // Next's replacement may keep the callback for a render that never comes: this one never runs it.
    globalThis.setImmediate = (() => {
      nextsCalls += 1;
    }) as unknown as typeof setImmediate;
    try {
      expect(nodeSetImmediate()).toBe(original);
      await thisTurnsCheckPhase();
      expect(nextsCalls).toBe(0);
    } finally {
      globalThis.setImmediate = original;
    }
  });
});
