// The entry editor's Routes section as data (issue 38): an entry's `routes` read into the form's
// fields and written back as the very value the providers file takes. Nothing here judges a value:
// what is typed goes to the server as typed (a weight of "abc" is sent as "abc"), and the server's
// parser (lib/providers/entry-routes.ts) says what is wrong, naming the field; this file maps that
// name back to the field. Only what the form cannot hold at all (JSON that does not parse) is told here.
import { MAX_ROUTE_TARGETS, ROUTE_WEIGHT } from "../lib/providers/entry-routes";
import { ROUTE_POLICIES, type RoutePolicy } from "../lib/providers/common/types";
import { parseJson } from "./ops-entry-json";

export { MAX_ROUTE_TARGETS, ROUTE_POLICIES, ROUTE_WEIGHT, type RoutePolicy };

/** What each policy does, in a line (docs/providers.md, "Routes and failover"). */
export const POLICY_TEXT: Record<RoutePolicy, { label: string; text: string }> = {
  ordered: { label: "Ordered", text: "This entry's own provider first, then the targets in the order listed." },
  weighted: {
    label: "Weighted",
    text: "The first try is drawn by weight (its own provider's and each target's), then the next of the rest.",
  },
  cheapest: {
    label: "Cheapest",
    text: "By what this input is declared to cost at each; one with no declared cost goes last.",
  },
  fastest: {
    label: "Fastest",
    text: "By the median time of their last 20 successful runs; one not yet measured goes first.",
  },
};

export type CostPer = "" | "unit" | "second";

/** One target as the form holds it: text, as typed. */
export interface TargetForm {
  /** React's key and the fields' ids; never written. */
  key: string;
  provider: string;
  upstream: string;
  weight: string;
  costPer: CostPer;
  costUsd: string;
  costUnit: string;
  /** The target's other fields (its kind's: a workflow, output_fields…) as a JSON object's text; "" for none. */
  extra: string;
}

export interface RoutesForm {
  policy: RoutePolicy;
  /** The entry's own provider's weight under "weighted" (`routes.weight`); "" for the default. */
  ownWeight: string;
  targets: TargetForm[];
}

export const NO_ROUTES: RoutesForm = { policy: "ordered", ownWeight: "", targets: [] };

let keys = 0;
export const newTargetKey = () => `t${++keys}`;

export function blankTarget(provider: string): TargetForm {
  return { key: newTargetKey(), provider, upstream: "", weight: "", costPer: "", costUsd: "", costUnit: "", extra: "" };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The fields each target has a field of its own for; the rest are its JSON. */
const TARGET_FIELDS = ["provider", "upstream_model", "weight"] as const;

/** A cost the form's fields can hold: `{unit, usd}` or `{per_second_usd}`, as text. Else null (it stays JSON). */
function simpleCost(cost: unknown): Pick<TargetForm, "costPer" | "costUsd" | "costUnit"> | null {
  if (!isObject(cost)) return null;
  const keys = Object.keys(cost);
  if (keys.length === 1 && typeof cost.per_second_usd === "string")
    return { costPer: "second", costUsd: cost.per_second_usd, costUnit: "" };
  if (keys.length === 2 && typeof cost.unit === "string" && typeof cost.usd === "string")
    return { costPer: "unit", costUsd: cost.usd, costUnit: cost.unit };
  return null;
}

/**
 * A document's `routes` as the form's fields, or why the form cannot hold it (then it stays in
 * "Other fields", as JSON, for the server to judge). Absent: no targets.
 */
export function routesFormOf(value: unknown): { ok: true; form: RoutesForm } | { ok: false; reason: string } {
  if (value === undefined) return { ok: true, form: NO_ROUTES };
  if (!isObject(value)) return { ok: false, reason: "routes is not an object" };
  const unknown = Object.keys(value).find((k) => !["policy", "weight", "targets"].includes(k));
  if (unknown !== undefined) return { ok: false, reason: `routes has a field the form does not know ("${unknown}")` };
  const policy = value.policy ?? "ordered";
  if (typeof policy !== "string" || !(ROUTE_POLICIES as readonly string[]).includes(policy))
    return { ok: false, reason: `its policy is not one of ${ROUTE_POLICIES.join(", ")}` };
  if (value.weight !== undefined && typeof value.weight !== "number")
    return { ok: false, reason: "its weight is not a number" };
  if (!Array.isArray(value.targets)) return { ok: false, reason: "its targets are not a list" };
  if (value.targets.length > MAX_ROUTE_TARGETS)
    return { ok: false, reason: `it has more than ${MAX_ROUTE_TARGETS} targets` };
  const targets: TargetForm[] = [];
  for (const [i, raw] of value.targets.entries()) {
    const n = i + 1;
    if (!isObject(raw)) return { ok: false, reason: `target ${n} is not an object` };
    if (raw.provider !== undefined && typeof raw.provider !== "string")
      return { ok: false, reason: `target ${n}'s provider is not text` };
    if (raw.upstream_model !== undefined && typeof raw.upstream_model !== "string")
      return { ok: false, reason: `target ${n}'s upstream model is not text` };
    if (raw.weight !== undefined && typeof raw.weight !== "number")
      return { ok: false, reason: `target ${n}'s weight is not a number` };
    const cost = raw.cost === undefined ? null : simpleCost(raw.cost);
    // Defined properties, never assignment: a "__proto__" field stays a field (for the server to refuse).
    const extra = Object.fromEntries(
      Object.entries(raw).filter(
        ([k]) => !(TARGET_FIELDS as readonly string[]).includes(k) && !(k === "cost" && cost !== null),
      ),
    );
    targets.push({
      key: newTargetKey(),
      provider: raw.provider ?? "",
      upstream: raw.upstream_model ?? "",
      weight: raw.weight === undefined ? "" : String(raw.weight),
      ...(cost ?? { costPer: "", costUsd: "", costUnit: "" }),
      extra: Object.keys(extra).length > 0 ? JSON.stringify(extra, null, 2) : "",
    });
  }
  return {
    ok: true,
    form: {
      policy: policy as RoutePolicy,
      ownWeight: value.weight === undefined ? "" : String(value.weight),
      targets,
    },
  };
}

/** A number typed as one is sent as one; anything else as the text typed, for the server to refuse by name. */
function numberOrText(text: string): number | string {
  const t = text.trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

/** Where the form shows a message: the section, the policy, the own weight, or one field of a target. */
export type RouteSpot =
  | { at: "general" }
  | { at: "policy" }
  | { at: "ownWeight" }
  | { at: "target"; index: number; field: "provider" | "upstream" | "weight" | "cost" | "extra" };

export interface RouteProblem {
  spot: RouteSpot;
  message: string;
}

/**
 * The `routes` value the form says (undefined: no targets, no routes), and the problems the form
 * itself can see: a target's JSON that does not parse, or that sets what a field of the form sets.
 */
export function routesValue(form: RoutesForm): {
  value: Record<string, unknown> | undefined;
  problems: RouteProblem[];
} {
  const problems: RouteProblem[] = [];
  if (form.targets.length === 0) return { value: undefined, problems };
  const weighted = form.policy === "weighted";
  const targets = form.targets.map((t, index) => {
    let extra: Record<string, unknown> = {};
    if (t.extra.trim()) {
      const parsed = parseJson(t.extra);
      if (!parsed.ok) problems.push({ spot: { at: "target", index, field: "extra" }, message: parsed.message });
      else if (!isObject(parsed.value))
        problems.push({
          spot: { at: "target", index, field: "extra" },
          message: "More fields must be a JSON object (empty for none).",
        });
      else {
        extra = parsed.value;
        const taken = [...TARGET_FIELDS, ...(t.costPer ? ["cost"] : [])].find((k) => Object.hasOwn(extra, k));
        if (taken)
          problems.push({
            spot: { at: "target", index, field: "extra" },
            message: `"${taken}" is set by its own field above: take it out of here.`,
          });
      }
    }
    const cost =
      t.costPer === "second"
        ? { per_second_usd: t.costUsd.trim() }
        : t.costPer === "unit"
          ? { unit: t.costUnit.trim(), usd: t.costUsd.trim() }
          : null;
    return {
      ...extra,
      provider: t.provider,
      ...(t.upstream.trim() ? { upstream_model: t.upstream.trim() } : {}),
      ...(weighted && t.weight.trim() ? { weight: numberOrText(t.weight) } : {}),
      ...(cost ? { cost } : {}),
    };
  });
  return {
    problems,
    value: {
      policy: form.policy,
      ...(weighted && form.ownWeight.trim() ? { weight: numberOrText(form.ownWeight) } : {}),
      targets,
    },
  };
}

/**
 * Where a server refusal's param (`entry.routes.targets[1].weight`) belongs in the form; null
 * when it names no part of the routes.
 */
export function routeSpotOf(param: string | null): RouteSpot | null {
  const p = (param ?? "").replace(/^entry\.?/, "");
  if (p !== "routes" && !p.startsWith("routes.")) return null;
  const target = /^routes\.targets\[(\d+)\](?:\.([A-Za-z_]+))?/.exec(p);
  if (target) {
    const index = Number(target[1]);
    const key = target[2] ?? "";
    const field =
      key === "provider"
        ? "provider"
        : key === "upstream_model"
          ? "upstream"
          : key === "weight"
            ? "weight"
            : key === "cost"
              ? "cost"
              : "extra";
    return { at: "target", index, field };
  }
  if (p.startsWith("routes.policy")) return { at: "policy" };
  if (p.startsWith("routes.weight")) return { at: "ownWeight" };
  return { at: "general" };
}
