// The catalog (docs/api.md, "Model entries"): list, retrieve, lifecycle headers, 410 and 404, and the
// public twins without a key.
import type { Model, ModelWithSchema as AnyModelWithSchema } from "../../lib/core/catalog/model-shape";
import { expect, test, type APIResponse } from "./fixtures";
import { createKey, createWorkspace } from "./admin";
import {
  DECIMAL_USD,
  expectDeprecationHeaders,
  expectError,
  expectNoDeprecationHeaders,
  expectOk,
  keyHeader,
  MODEL_ID,
  NAMES_GRADIENT,
} from "./helpers";

/** A model entry, with what these tests read of its input schema (the document says only "an object"). */
type ModelWithSchema = Omit<AnyModelWithSchema, "input_schema"> & {
  input_schema: {
    $schema: string;
    type: string;
    properties: Record<string, Record<string, unknown>>;
    required: string[];
    additionalProperties: boolean;
  };
};

const MODEL_FIELDS = [
  "id",
  "object",
  "type",
  "name",
  "creator",
  "modality",
  "tasks",
  "description",
  "revision",
  "version",
  "latest",
  "status",
  "deprecation",
  "pricing",
];

let headers: Record<string, string>;

test.beforeAll(() => {
  const workspace = createWorkspace();
  headers = keyHeader(createKey(workspace.id).key);
});

function expectModelShape(m: Model): void {
  for (const field of MODEL_FIELDS) expect(m, `${m.id} has ${field}`).toHaveProperty(field);
  expect(m.id).toMatch(MODEL_ID);
  expect(m.object).toBe("model");
  expect(["model", "preset"]).toContain(m.type);
  for (const field of ["name", "creator", "description", "status"] as const) {
    expect(typeof m[field], `${m.id}.${field}`).toBe("string");
    expect(m[field].length).toBeGreaterThan(0);
  }
  expect(["image", "video", "audio", "3d"]).toContain(m.modality);
  expect(Array.isArray(m.tasks)).toBe(true);
  expect(m.tasks.length).toBeGreaterThan(0);
  for (const t of m.tasks) expect(typeof t).toBe("string");
  expect(m.revision).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(new Date(`${m.revision}T00:00:00Z`).toISOString().slice(0, 10)).toBe(m.revision);
  const version = /@(\d+)$/.exec(m.id)?.[1] ?? null;
  expect(m.version, `${m.id}.version`).toBe(version);
  expect(typeof m.latest).toBe("boolean");
  if (m.deprecation !== null) {
    expect(typeof m.deprecation).toBe("object");
    expect(m.deprecation).toHaveProperty("replaced_by");
  }
  expect(typeof m.pricing.unit).toBe("string");
  expect(m.pricing.usd).toMatch(/^\d+(\.\d+)?$/);
  expect(Array.isArray(m.pricing.overrides)).toBe(true);
  expect(Array.isArray(m.pricing.drivers)).toBe(true);
  for (const d of m.pricing.drivers) expect(typeof d).toBe("string");
}

function byId(list: Model[], id: string): Model {
  const found = list.find((m) => m.id === id);
  expect(found, `${id} in the list`).toBeDefined();
  return found!;
}

function expectPublicCache(res: APIResponse): void {
  const cacheControl = res.headers()["cache-control"] ?? "";
  expect(cacheControl, "Cache-Control").toMatch(/(^|[\s,])(s-)?max-age=3600(\s*,|$)/);
  expect(cacheControl).not.toMatch(/no-store|private/);
}

test.describe("GET /v1/models", () => {
  test("lists every model and preset with every Model field", async ({ request }) => {
    const list = await expectOk<{ object: string; data: Model[] }>(await request.get("/v1/models", { headers }));
    expect(Object.keys(list).sort()).toEqual(["data", "object"]);
    expect(list.object).toBe("list");
    expect(list.data.length).toBeGreaterThanOrEqual(4);
    for (const m of list.data) {
      expectModelShape(m);
      expect(m, "a list entry has no input_schema").not.toHaveProperty("input_schema");
    }
    expect(new Set(list.data.map((m) => m.id)).size).toBe(list.data.length);

    const gradient = byId(list.data, "atelier/gradient");
    expect(gradient).toMatchObject({
      type: "model",
      version: null,
      latest: true,
      deprecation: null,
      modality: "image",
    });
    expect(gradient.pricing.usd).toBe("0.002");
    expect(gradient.pricing.drivers).toEqual(["num_images"]);

    const classic = byId(list.data, "atelier/gradient-classic");
    expect(classic.type).toBe("model");
    expect(classic.deprecation).not.toBeNull();
    expect(classic.deprecation!.replaced_by).toBe("atelier/gradient");

    const v1 = byId(list.data, "atelier/gradient-poster@1");
    const v2 = byId(list.data, "atelier/gradient-poster@2");
    expect(v1).toMatchObject({ type: "preset", version: "1", latest: false });
    expect(v2).toMatchObject({ type: "preset", version: "2", latest: true });

    expect(list.data.map((m) => m.id)).not.toContain("atelier/gradient-legacy");
    for (const m of list.data) expect(m.pricing.usd).toMatch(/^\d+(\.\d+)?$/);
  });

  test("only one version of each preset is latest", async ({ request }) => {
    const list = await expectOk<{ data: Model[] }>(await request.get("/v1/models", { headers }));
    const latestByBase = new Map<string, number>();
    for (const m of list.data.filter((x) => x.type === "preset")) {
      const base = m.id.split("@")[0]!;
      latestByBase.set(base, (latestByBase.get(base) ?? 0) + (m.latest ? 1 : 0));
    }
    expect(latestByBase.size).toBeGreaterThan(0);
    for (const [base, count] of latestByBase) expect(count, base).toBe(1);
  });
});

test.describe("GET /v1/models/{creator}/{name}", () => {
  test("atelier/gradient → ModelWithSchema with a 2020-12 input schema", async ({ request }) => {
    const res = await request.get("/v1/models/atelier/gradient", { headers });
    const model = await expectOk<ModelWithSchema>(res);
    expectNoDeprecationHeaders(res);
    expectModelShape(model);
    const list = await expectOk<{ data: Model[] }>(await request.get("/v1/models", { headers }));
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    const { input_schema, ...rest } = model;
    expect(rest).toEqual(byId(list.data, "atelier/gradient"));

    const schema = model.input_schema;
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toContain("prompt");
    expect(schema.properties.aspect_ratio).toMatchObject({ default: "1:1" });
    expect(schema.properties.aspect_ratio!.enum).toContain("1:1");
    expect(schema.properties.resolution).toMatchObject({ enum: ["standard", "hd"], default: "standard" });
    expect(schema.properties.num_images).toMatchObject({ type: "integer", minimum: 1, maximum: 4, default: 1 });
    expect(schema.properties.format).toMatchObject({ default: "png" });
    for (const driver of model.pricing.drivers) expect(Object.keys(schema.properties)).toContain(driver);
  });

  test("a preset version is retrieved by its @version ID", async ({ request }) => {
    for (const [id, version, latest] of [
      ["atelier/gradient-poster@1", "1", false],
      ["atelier/gradient-poster@2", "2", true],
    ] as const) {
      const model = await expectOk<ModelWithSchema>(await request.get(`/v1/models/${id}`, { headers }));
      expect(model).toMatchObject({ id, type: "preset", version, latest });
      expect(model.input_schema.additionalProperties).toBe(false);
    }
  });

  test("a deprecated model carries Deprecation, Sunset and Link", async ({ request }) => {
    const res = await request.get("/v1/models/atelier/gradient-classic", { headers });
    const model = await expectOk<ModelWithSchema>(res);
    expect(model.id).toBe("atelier/gradient-classic");
    expect(model.deprecation!.replaced_by).toBe("atelier/gradient");
    expectDeprecationHeaders(res);
    // It still answers 200, so its sunset date is still ahead.
    expect(Date.parse(res.headers()["sunset"]!)).toBeGreaterThan(Date.now());
  });

  test("a retired model → 410 gone naming its replacement", async ({ request }) => {
    const res = await request.get("/v1/models/atelier/gradient-legacy", { headers });
    const error = await expectError(res, 410, "gone");
    expect(error.message).toMatch(NAMES_GRADIENT);
  });

  test("an unknown model → 404 resource_not_found", async ({ request }) => {
    await expectError(await request.get("/v1/models/atelier/no-such-model", { headers }), 404, "resource_not_found");
    await expectError(await request.get("/v1/models/nobody/gradient", { headers }), 404, "resource_not_found");
    await expectError(
      await request.get("/v1/models/atelier/gradient-poster@9", { headers }),
      404,
      "resource_not_found",
    );
  });

  test("needs a key", async ({ request }) => {
    await expectError(await request.get("/v1/models/atelier/gradient"), 401, "missing_api_key");
  });
});

test.describe("public catalog", () => {
  test("GET /v1/public/models without a key: the same list, cacheable for an hour", async ({ request }) => {
    const res = await request.get("/v1/public/models");
    const pub = await expectOk<{ object: string; data: Model[] }>(res);
    expectPublicCache(res);
    const keyed = await expectOk<{ object: string; data: Model[] }>(await request.get("/v1/models", { headers }));
    expect(pub).toEqual(keyed);
  });

  test("GET /v1/public/models/atelier/gradient without a key: same entry, cacheable", async ({ request }) => {
    const res = await request.get("/v1/public/models/atelier/gradient");
    const pub = await expectOk<ModelWithSchema>(res);
    expectPublicCache(res);
    expectNoDeprecationHeaders(res);
    const keyed = await expectOk<ModelWithSchema>(await request.get("/v1/models/atelier/gradient", { headers }));
    expect(pub).toEqual(keyed);
  });

  test("the public deprecated entry has the same deprecation headers", async ({ request }) => {
    const res = await request.get("/v1/public/models/atelier/gradient-classic");
    await expectOk(res);
    expectPublicCache(res);
    expectDeprecationHeaders(res);
    const keyed = await request.get("/v1/models/atelier/gradient-classic", { headers });
    for (const h of ["deprecation", "sunset", "link"]) expect(res.headers()[h], h).toBe(keyed.headers()[h]);
  });

  test("the public retired entry → 410 gone; unknown → 404", async ({ request }) => {
    const gone = await expectError(await request.get("/v1/public/models/atelier/gradient-legacy"), 410, "gone");
    expect(gone.message).toMatch(NAMES_GRADIENT);
    await expectError(await request.get("/v1/public/models/atelier/no-such-model"), 404, "resource_not_found");
  });
});

test("prices are decimal strings", async ({ request }) => {
  const list = await expectOk<{ data: Model[] }>(await request.get("/v1/public/models"));
  for (const m of list.data) expect(m.pricing.usd).toMatch(DECIMAL_USD);
});
