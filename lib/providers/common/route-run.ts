// A routed entry (its `routes`, issue 38): the same entry served by its own provider and other
// targets, tried in the order its policy gives. A target out of service is passed over; one that
// fails with an outage (unreachable, 5xx, no answer in time) before the run passed its cancel
// point — before anything was billed — hands the run to the next target; a refusal (a content
// policy, bad input) fails the run there, as would any failure once billing began. Each try is
// reported (RunTools.reportAttempt): the run keeps them, and the one that made the outputs names
// the run's provider.
import { parseUsd, type Micros } from "../../primitives/money";
import type { ModelOutput, ProviderCost, RouteAttempt, RunTools } from "../../core/catalog/model-definition";
import { priceInput } from "../../core/runs/pricing";
import { providerUnavailableReason } from "./health";
import { tracedProviderCall } from "./provider-span";
import {
  DEFAULT_POLL,
  remoteEntryFacts,
  runAtProvider,
  type PollOptions,
  type RemoteModelDefinition,
} from "./remote-model";
import {
  ProviderError,
  type ProviderAdapter,
  type ProviderConfig,
  type RemoteEntryConfig,
  type RoutePolicy,
} from "./types";

/** One way to serve the entry: a provider, the entry as that provider takes it, its adapter. */
export interface RouteLeg {
  provider: ProviderConfig;
  entry: RemoteEntryConfig;
  adapter: ProviderAdapter;
  poll: Partial<PollOptions>;
  weight: number;
}

/** Recent successful run times by leg (this process's), for "fastest": the last RECENT of each. */
const RECENT = 20;
const durations = new Map<string, number[]>();
const legKey = (leg: RouteLeg) => `${leg.entry.id}\u0000${leg.provider.id}`;

/** A successful run at this leg took `ms` (kept for "fastest"). */
export function recordDuration(leg: RouteLeg, ms: number): void {
  const list = durations.get(legKey(leg)) ?? [];
  list.push(ms);
  if (list.length > RECENT) list.shift();
  durations.set(legKey(leg), list);
}

/** What a run of this input is declared to cost at the leg (per-second costs at its median time); Infinity: unknown. */
function declaredCost(cost: ProviderCost | null, input: Record<string, unknown>, medianMs: number | null): number {
  if (!cost) return Infinity;
  if (cost.per === "unit") {
    try {
      return priceInput(cost.pricing, input);
    } catch {
      return Infinity;
    }
  }
  const perSecond = parseUsd(cost.usd) as Micros | null;
  return perSecond === null || medianMs === null ? Infinity : (perSecond * medianMs) / 1000;
}

const medianOf = (leg: RouteLeg) => {
  const list = durations.get(legKey(leg));
  if (!list || list.length === 0) return null;
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

/** The legs in the order this run tries them. */
export function orderLegs(
  legs: readonly RouteLeg[],
  policy: RoutePolicy,
  input: Record<string, unknown>,
  random: () => number = Math.random,
): RouteLeg[] {
  if (policy === "ordered") return [...legs];
  if (policy === "weighted") {
    // A weighted draw without replacement: the first is picked by weight, then the next of the rest.
    const left = [...legs];
    const order: RouteLeg[] = [];
    while (left.length > 0) {
      let pick = random() * left.reduce((sum, leg) => sum + leg.weight, 0);
      const index = left.findIndex((leg) => (pick -= leg.weight) < 0);
      order.push(...left.splice(index < 0 ? left.length - 1 : index, 1));
    }
    return order;
  }
  if (policy === "cheapest")
    return legs
      .map((leg, i) => ({ leg, i, cost: declaredCost(leg.entry.cost ?? null, input, medianOf(leg)) }))
      .sort((a, b) => a.cost - b.cost || a.i - b.i)
      .map((x) => x.leg);
  // fastest: a leg with no recent run first (so it gets measured), then by median time.
  return legs
    .map((leg, i) => ({ leg, i, ms: medianOf(leg) ?? -1 }))
    .sort((a, b) => a.ms - b.ms || a.i - b.i)
    .map((x) => x.leg);
}

export function routedModelDefinition(legs: readonly RouteLeg[], policy: RoutePolicy): RemoteModelDefinition {
  const own = legs[0]!;
  return {
    ...remoteEntryFacts(own.entry),
    provider: own.provider.id,
    routeProviders: legs.map((leg) => leg.provider.id),
    // Out of service only when every leg is: then the soonest back is when it can run again.
    unavailableReason: () => {
      const down = legs.map((leg) => providerUnavailableReason(leg.provider.id, leg.adapter.health));
      if (down.some((d) => d === null)) return null;
      const soonest = down.reduce((a, b) => (a!.until <= b!.until ? a : b))!;
      return { message: `every provider serving it is failing (${soonest.message})`, until: soonest.until };
    },
    async run(input, tools) {
      const attempts: RouteAttempt[] = [];
      const order = orderLegs(legs, policy, input);
      let lastError: unknown = null;
      for (const [i, leg] of order.entries()) {
        const started = Date.now();
        const attempt = (outcome: RouteAttempt["outcome"], reason: string | null) => {
          const record: RouteAttempt = {
            provider: leg.provider.id,
            upstream_model: leg.entry.upstreamModel,
            outcome,
            reason,
            started_at: new Date(started).toISOString(),
            ms: Date.now() - started,
          };
          attempts.push(record);
          tools.reportAttempt(record);
        };
        const down = providerUnavailableReason(leg.provider.id, leg.adapter.health);
        if (down && i < order.length - 1) {
          attempt("skipped", `out of service: ${down.message}`);
          continue;
        }
        // Past its cancel point the run may be billed: no other target gets it then.
        let billed = false;
        const legTools: RunTools = {
          ...tools,
          markUncancelable: async (reason) => {
            billed = true;
            await tools.markUncancelable(reason);
          },
        };
        try {
          const outputs: ModelOutput[] = await tracedProviderCall(leg.provider, leg.entry, tools.signal, () =>
            runAtProvider(leg.provider, leg.entry, leg.adapter, { ...DEFAULT_POLL, ...leg.poll }, input, legTools),
          );
          attempt("succeeded", null);
          recordDuration(leg, Date.now() - started);
          return outputs;
        } catch (err) {
          const outage = err instanceof ProviderError && err.transient;
          attempt("failed", err instanceof Error ? err.message : String(err));
          lastError = err;
          if (!outage || billed || tools.signal.aborted || i === order.length - 1) throw err;
        }
      }
      throw lastError ?? new ProviderError("No provider could take the run.", true);
    },
  };
}
