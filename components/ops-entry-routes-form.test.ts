// The entry editor's Routes form as data: what it reads from a document's routes, what it writes
// (the server's own parser takes it, and refuses a bad weight naming the field the form maps back).
import { describe, expect, it } from "vitest";
import { ApiError } from "../lib/primitives/errors";
import { checkEntryDocument, routeProviders } from "../lib/providers/stored-catalog/documents";
import { blankTarget, routeSpotOf, routesFormOf, routesValue, type RoutesForm } from "./ops-entry-routes-form";

const ROUTES = {
  policy: "weighted",
  weight: 3,
  targets: [
    { provider: "backup-a", upstream_model: "image-1b", weight: 10, cost: { unit: "image", usd: "0.02" } },
    {
      provider: "backup-b",
      upstream_model: "image-1c",
      cost: { unit: "image", usd: "0.01", drivers: ["n"] },
    },
  ],
};

const entry = (routes: unknown) => ({
  id: "main/heron",
  upstream_model: "image-1",
  name: "Heron",
  description: "A heron.",
  modality: "image",
  tasks: ["text-to-image"],
  revision: "2026-05-01",
  input_schema: {
    type: "object",
    additionalProperties: false,
    required: ["prompt"],
    properties: { prompt: { type: "string", minLength: 1 }, n: { type: "integer", minimum: 1, maximum: 4 } },
  },
  pricing: { unit: "image", usd: "0.04" },
  ...(routes === undefined ? {} : { routes }),
});

function check(routes: unknown) {
  return checkEntryDocument(
    entry(routes),
    { id: "main", kind: "openai-images" },
    {
      baseDir: process.cwd(),
      env: {},
      keysRequired: false,
      providers: routeProviders([
        { id: "main", kind: "openai-images" },
        { id: "backup-a", kind: "openai-images" },
        { id: "backup-b", kind: "openai-images" },
      ]),
    },
  );
}

describe("the Routes form", () => {
  it("reads routes into fields and writes back what it read; a cost with drivers stays the target's JSON", () => {
    const read = routesFormOf(ROUTES);
    if (!read.ok) throw new Error(read.reason);
    expect(read.form.ownWeight).toBe("3");
    expect(read.form.targets[0]).toMatchObject({ weight: "10", costPer: "unit", costUsd: "0.02", extra: "" });
    expect(read.form.targets[1]!.costPer).toBe("");
    expect(JSON.parse(read.form.targets[1]!.extra)).toEqual({ cost: { unit: "image", usd: "0.01", drivers: ["n"] } });
    const { value, problems } = routesValue(read.form);
    expect(problems).toEqual([]);
    expect(value).toEqual(ROUTES);
    // The server's parser takes what the form writes.
    expect(check(value).parsed.routes).toMatchObject({ policy: "weighted", weight: 3 });
  });

  it("writes weights under weighted only, and nothing at all without targets", () => {
    const read = routesFormOf(ROUTES);
    if (!read.ok) throw new Error(read.reason);
    const ordered = routesValue({ ...read.form, policy: "ordered" }).value as typeof ROUTES;
    expect(ordered.weight).toBeUndefined();
    expect(ordered.targets.map((t) => (t as { weight?: number }).weight)).toEqual([undefined, undefined]);
    expect(routesValue({ ...read.form, targets: [] }).value).toBeUndefined();
  });

  it("sends a weight as typed; the server refuses it naming the field, which maps to that target's weight", () => {
    const form: RoutesForm = {
      policy: "weighted",
      ownWeight: "",
      targets: [
        { ...blankTarget("backup-a"), upstream: "image-1b" },
        { ...blankTarget("backup-b"), upstream: "image-1c", weight: "250" },
      ],
    };
    for (const [typed, sent] of [
      ["250", 250],
      ["2.5", 2.5],
      ["heavy", "heavy"],
    ] as const) {
      form.targets[1]!.weight = typed;
      const { value } = routesValue(form);
      expect((value!.targets as Array<{ weight?: unknown }>)[1]!.weight).toBe(sent);
      let refused: ApiError | null = null;
      try {
        check(value);
      } catch (err) {
        refused = err as ApiError;
      }
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused!.param).toBe("entry.routes.targets[1].weight");
      expect(refused!.message).toContain("must be a whole number from 1 to 100");
      expect(routeSpotOf(refused!.param)).toEqual({ at: "target", index: 1, field: "weight" });
    }
  });

  it("keeps a target's own JSON as fields, a __proto__ one too (the server refuses it), never as a prototype", () => {
    const form: RoutesForm = {
      policy: "ordered",
      ownWeight: "",
      targets: [{ ...blankTarget("backup-a"), upstream: "x", extra: '{"__proto__": {"polluted": true}}' }],
    };
    const { value, problems } = routesValue(form);
    expect(problems).toEqual([]);
    const target = (value!.targets as object[])[0]!;
    expect(Object.hasOwn(target, "__proto__")).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(() => check(value)).toThrow(/entry\.routes\.targets\[0\]\.__proto__/);
  });

  it("tells the form's own problems: JSON that does not parse, or that sets what a field sets", () => {
    const target = { ...blankTarget("backup-a"), extra: '{"weight": 4}' };
    expect(routesValue({ policy: "ordered", ownWeight: "", targets: [target] }).problems).toEqual([
      {
        spot: { at: "target", index: 0, field: "extra" },
        message: '"weight" is set by its own field above: take it out of here.',
      },
    ]);
    target.extra = "{ nope";
    expect(routesValue({ policy: "ordered", ownWeight: "", targets: [target] }).problems[0]!.message).toMatch(
      /^Line 1/,
    );
  });

  it("leaves to Other fields the routes it cannot hold, saying why", () => {
    expect(routesFormOf(undefined)).toMatchObject({ ok: true, form: { targets: [] } });
    expect(routesFormOf("ordered")).toEqual({ ok: false, reason: "routes is not an object" });
    expect(routesFormOf({ policy: "random", targets: [] })).toMatchObject({ ok: false });
    expect(routesFormOf({ targets: [{ provider: 7 }] })).toEqual({
      ok: false,
      reason: "target 1's provider is not text",
    });
    expect(routesFormOf({ targets: Array.from({ length: 1000 }, () => ({})) })).toMatchObject({ ok: false });
  });

  it("maps a refusal's param to its place in the form", () => {
    expect(routeSpotOf("entry.routes.targets[2].provider")).toEqual({ at: "target", index: 2, field: "provider" });
    expect(routeSpotOf("entry.routes.targets[0].cost.usd")).toEqual({ at: "target", index: 0, field: "cost" });
    expect(routeSpotOf("entry.routes.targets[0].workflow")).toEqual({ at: "target", index: 0, field: "extra" });
    expect(routeSpotOf("entry.routes.policy")).toEqual({ at: "policy" });
    expect(routeSpotOf("entry.routes.weight")).toEqual({ at: "ownWeight" });
    expect(routeSpotOf("entry.routes.targets")).toEqual({ at: "general" });
    expect(routeSpotOf("entry.pricing.usd")).toBeNull();
    expect(routeSpotOf("entry.routesx")).toBeNull();
  });
});
