// An entry's `routes` (issue 38): other providers that serve the same entry, and how a run picks
// among them. Each target names a provider of the catalog and carries that provider kind's entry
// fields (an upstream model, a ComfyUI workflow and bindings, fal's output fields…) and its own
// cost, checked by that kind against the entry's one input schema, as the entry's own are.
//   "routes": { "policy": "ordered", "targets": [
//     { "provider": "replicate", "upstream_model": "black-forest-labs/flux-dev", "cost": { … } } ] }
import type { JsonSchemaObject } from "../primitives/json-schema";
import type { Modality, ProviderCost } from "../core/catalog/model-definition";
import { arrayAt, fail, integerAt, objectAt, stringAt, type JsonObject } from "./common/json-fields";
import type { ParseContext } from "./common/kind";
import { ROUTE_POLICIES, type EntryRoutes, type RoutePolicy, type RouteTarget } from "./common/types";

/** Targets besides the entry's own provider: failover rarely needs more, and each may be tried once per run. */
export const MAX_ROUTE_TARGETS = 7;
export const ROUTE_WEIGHT = { min: 1, max: 100 } as const;

export function parseRoutes(
  value: unknown,
  path: string,
  entry: {
    providerId: string;
    modality: Modality;
    schema: JsonSchemaObject;
    /** The entry's own `cost` parser (entry-config.ts), for each target's. */
    parseCost(value: unknown, path: string, schema: JsonSchemaObject): ProviderCost | null;
  },
  ctx: ParseContext,
): EntryRoutes | undefined {
  if (value === undefined) return undefined;
  const routes = objectAt(value, path, ["policy", "weight", "targets"]);
  const policy = stringAt(routes, "policy", path, { fallback: "ordered", oneOf: ROUTE_POLICIES }) as RoutePolicy;
  const weight = integerAt(routes, "weight", path, { fallback: 1, ...ROUTE_WEIGHT });
  const seen = new Set<string>([entry.providerId]);
  const targets = arrayAt(routes.targets, `${path}.targets`, { min: 1, max: MAX_ROUTE_TARGETS }).map(
    (raw, i): RouteTarget => {
      const at = `${path}.targets[${i}]`;
      const providerId = stringAt(objectAt(raw, at, Object.keys(raw ?? {})), "provider", at);
      if (!ctx.providers)
        fail(`${at}.provider`, "cannot be checked here: routes are read with the catalog's providers.");
      const named = ctx.providers.get(providerId);
      if (!named)
        fail(
          `${at}.provider`,
          `names no provider of the catalog; the providers are: ${[...ctx.providers.keys()].join(", ") || "none"}.`,
        );
      if (seen.has(providerId))
        fail(`${at}.provider`, `repeats "${providerId}": each provider serves an entry once (its own counts).`);
      seen.add(providerId);
      const { kind } = named;
      if (!kind.modalities.includes(entry.modality))
        fail(
          `${at}.provider`,
          `is a ${kind.name} provider, which makes ${kind.modalities.join(", ")}, not ${entry.modality}.`,
        );
      // The provider itself may make less than its kind (an AI SDK package): the check its own entries get.
      const own = kind.modalitiesOf?.(named.settings);
      if (own && !own.modalities.includes(entry.modality))
        fail(`${at}.provider`, `names a provider that makes no ${entry.modality}: ${own.says}.`);
      const target: JsonObject = objectAt(raw, at, [
        "provider",
        "weight",
        "upstream_model",
        "cost",
        ...kind.entryFields,
      ]);
      return {
        providerId,
        upstreamModel: kind.upstreamModelRequired
          ? stringAt(target, "upstream_model", at, { maxLength: 200 })
          : stringAt(target, "upstream_model", at, { maxLength: 200, fallback: "" }),
        // The kind reads the entry's modality beside its own fields (the AI SDK's call mapping does).
        options: kind.parseEntry?.({ ...target, modality: entry.modality }, at, entry.schema, ctx) ?? {},
        cost: entry.parseCost(target.cost, `${at}.cost`, entry.schema),
        weight: integerAt(target, "weight", at, { fallback: 1, ...ROUTE_WEIGHT }),
      };
    },
  );
  return { policy, weight, targets };
}
