// The order a routed entry's run tries its targets in, by policy: as listed, by weight, by the
// declared cost of this input, by recent run times (a target not yet measured first).
import { describe, expect, it } from "vitest";
import { createHealth } from "./health";
import { orderLegs, recordDuration, type RouteLeg } from "./route-run";
import type { ProviderConfig, RemoteEntryConfig } from "./types";
import type { ProviderCost } from "../../core/catalog/model-definition";

function leg(id: string, options: { weight?: number; cost?: ProviderCost | null } = {}): RouteLeg {
  return {
    provider: { id } as ProviderConfig,
    entry: { id: "acme/routed", upstreamModel: `${id}-model`, cost: options.cost ?? null } as RemoteEntryConfig,
    adapter: {
      billsOnSubmit: false,
      health: createHealth(),
      submit: async () => ({ kind: "done", outputs: [] }),
      poll: async () => ({ kind: "done", outputs: [] }),
    },
    poll: {},
    weight: options.weight ?? 1,
  };
}

const ids = (legs: RouteLeg[]) => legs.map((l) => l.provider.id);
const perImage = (usd: string): ProviderCost => ({
  per: "unit",
  pricing: { unit: "image", usd, drivers: ["n"], overrides: [] },
});

describe("the order a routed run tries its targets in", () => {
  it("ordered: as listed", () => {
    expect(ids(orderLegs([leg("a"), leg("b"), leg("c")], "ordered", {}))).toEqual(["a", "b", "c"]);
  });

  it("weighted: each first about as often as its share of the weights", () => {
    const legs = [leg("a", { weight: 3 }), leg("b", { weight: 1 })];
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const first = { a: 0, b: 0 };
    for (let i = 0; i < 4000; i++) first[orderLegs(legs, "weighted", {}, random)[0]!.provider.id as "a" | "b"]++;
    expect(first.a / 4000).toBeGreaterThan(0.7);
    expect(first.a / 4000).toBeLessThan(0.8);
    // Every target is still tried, once each.
    expect(ids(orderLegs(legs, "weighted", {}, random)).sort()).toEqual(["a", "b"]);
  });

  it("cheapest: by what this input is declared to cost at each; no cost declared last", () => {
    const legs = [leg("none"), leg("dear", { cost: perImage("0.05") }), leg("cheap", { cost: perImage("0.01") })];
    expect(ids(orderLegs(legs, "cheapest", { n: 2 }))).toEqual(["cheap", "dear", "none"]);
  });

  it("fastest: a target never measured first, then by median time", () => {
    const [slow, fast, fresh] = [leg("slow"), leg("fast"), leg("fresh")];
    for (const ms of [900, 1000, 1100]) recordDuration(slow!, ms);
    for (const ms of [300, 5000, 400]) recordDuration(fast!, ms);
    expect(ids(orderLegs([slow!, fast!, fresh!], "fastest", {}))).toEqual(["fresh", "fast", "slow"]);
    recordDuration(fresh!, 2000);
    expect(ids(orderLegs([slow!, fast!, fresh!], "fastest", {}))).toEqual(["fast", "slow", "fresh"]);
  });
});
