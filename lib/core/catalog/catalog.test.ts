import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../store/database";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import { SCOPES, type Ctx } from "../context";
import {
  deprecationHeaders,
  findCatalogEntry,
  getModel,
  getPublicModel,
  isRetired,
  listCatalog,
  listCatalogJson,
  listModels,
  MODEL_ID_PATTERN,
  splitModelId,
} from "./catalog";
import { ApiError } from "../../primitives/errors";
import { pauseModel, resumeModel } from "./model-pauses";
import { quoteRun } from "../runs/quotes";
import { programSearchPath, setProgramSearchPath } from "../../media/host";
import { CLI_AUDIT } from "../audit/audit-writer";

async function thrownAsync(promise: Promise<unknown>): Promise<ApiError> {
  const caught = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(caught).toBeInstanceOf(ApiError);
  return caught as ApiError;
}

function thrown(fn: () => unknown): ApiError {
  let caught: unknown = null;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ApiError);
  return caught as ApiError;
}

describe(`catalog (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });
  /** Catalog verbs read ctx.scopes and ctx.db; the rest of the context is not needed here. */
  const scopedCtx = (scopes: Ctx["scopes"]): Ctx => ({ scopes, db }) as Ctx;
  let idList: string[] = [];
  beforeAll(async () => {
    idList = (await listCatalog(db)).data.map((m) => m.id);
  });
  const ids = () => idList;

  it("the listing's JSON text is the listing, made again when an entry's availability changes", async () => {
    expect(JSON.parse((await listCatalogJson(db)).toString("utf8"))).toEqual(await listCatalog(db));
    await pauseModel({ db }, { modelId: "atelier/gradient", until: null, reason: "maintenance", audit: CLI_AUDIT });
    try {
      const paused = JSON.parse((await listCatalogJson(db)).toString("utf8")) as Awaited<
        ReturnType<typeof listCatalog>
      >;
      expect(paused).toEqual(await listCatalog(db));
      expect(paused.data.find((m) => m.id === "atelier/gradient")?.availability).toMatchObject({
        status: "out_of_service",
        message: "maintenance",
      });
    } finally {
      await resumeModel({ db }, { modelId: "atelier/gradient", audit: CLI_AUDIT });
    }
    expect(JSON.parse((await listCatalogJson(db)).toString("utf8"))).toEqual(await listCatalog(db));
  });

  it("lists what can run now: retired entries are left out, deprecated ones kept", async () => {
    const list = await listCatalog(db);
    expect(list.object).toBe("list");
    expect(ids()).toContain("atelier/gradient");
    expect(ids()).toContain("atelier/gradient-classic");
    expect(ids()).not.toContain("atelier/gradient-legacy");
    expect(new Set(ids()).size).toBe(ids().length);
    for (const model of list.data) {
      expect(model.object).toBe("model");
      expect(model).not.toHaveProperty("input_schema");
      expect(MODEL_ID_PATTERN.test(model.id)).toBe(true);
    }
    const classic = list.data.find((m) => m.id === "atelier/gradient-classic")!;
    expect(classic.deprecation).toMatchObject({ replaced_by: "atelier/gradient" });
    expect(list.data.find((m) => m.id === "atelier/gradient")!.deprecation).toBeNull();
    expect(list.data.find((m) => m.id === "atelier/gradient")!.availability).toEqual({
      status: "available",
      message: null,
      until: null,
    });
  });

  it("speech runs on a machine without espeak-ng: available, quotable, Flite's voices only", async () => {
    const speechOf = async () => (await listCatalog(db)).data.find((m) => m.id === "atelier/speech")!;
    const machinePath = programSearchPath();
    try {
      setProgramSearchPath("/nonexistent");
      expect((await speechOf()).availability).toEqual({ status: "available", message: null, until: null });
      const { quote } = await quoteRun(testCtx(t, "ws_unused"), { model: "atelier/speech", input: { text: "hi" } });
      expect(quote).toMatchObject({ cost_usd: "0.00004", input: { voice: "en-us" } });
      const err = await thrownAsync(
        quoteRun(testCtx(t, "ws_unused"), { model: "atelier/speech", input: { text: "hi", voice: "fr" } }),
      );
      expect(err).toMatchObject({ code: "invalid_parameter", param: "input.voice" });
    } finally {
      setProgramSearchPath(machinePath);
    }
  });

  it("versions presets: only the newest is latest", async () => {
    const list = (await listCatalog(db)).data;
    const v1 = list.find((m) => m.id === "atelier/gradient-poster@1")!;
    const v2 = list.find((m) => m.id === "atelier/gradient-poster@2")!;
    expect(v1).toMatchObject({ type: "preset", version: "1", latest: false });
    expect(v2).toMatchObject({ type: "preset", version: "2", latest: true });
    expect(list.find((m) => m.id === "atelier/gradient")).toMatchObject({ type: "model", version: null, latest: true });
  });

  it("resolves a preset without version to its latest version", async () => {
    const { model, definition } = findCatalogEntry("atelier/gradient-poster");
    expect(model.id).toBe("atelier/gradient-poster@2");
    expect(definition.id).toBe("atelier/gradient-poster@2");
    expect(findCatalogEntry("atelier/gradient-poster@1").model.id).toBe("atelier/gradient-poster@1");
    expect((await getPublicModel(db, { id: "atelier/gradient-poster" })).input_schema).toBeDefined();
  });

  it("a retired entry answers gone, naming its replacement", async () => {
    const err = thrown(() => findCatalogEntry("atelier/gradient-legacy", "model"));
    expect(err.code).toBe("gone");
    expect(err.status).toBe(410);
    // param is for a 400 only (docs/api.md, "Errors").
    expect(err.param).toBeNull();
    expect(err.message).toContain("atelier/gradient-legacy was retired on 2026-01-01");
    expect(err.message).toContain("Use atelier/gradient instead");
    expect(err.headers.Link).toBe('</v1/models/atelier/gradient>; rel="successor-version"');
    expect((await thrownAsync(getPublicModel(db, { id: "atelier/gradient-legacy" }))).code).toBe("gone");
  });

  it("an unknown ID answers resource_not_found with a did-you-mean", async () => {
    const err = thrown(() => findCatalogEntry("atelier/gradiant"));
    expect(err.code).toBe("resource_not_found");
    expect(err.status).toBe(404);
    expect(err.param).toBeNull();
    expect(err.message).toContain('Did you mean "atelier/gradient"?');
    expect((await thrownAsync(getPublicModel(db, { id: "atelier/gradiant" }))).code).toBe("resource_not_found");
    const poster = thrown(() => findCatalogEntry("atelier/gradient-poster@3"));
    expect(poster.code).toBe("resource_not_found");
    expect(poster.message).toMatch(/Did you mean "atelier\/gradient-poster@[12]"\?/);
    // Nothing near: no suggestion; and a retired ID is never suggested.
    const far = thrown(() => findCatalogEntry("someone/completely-different-thing"));
    expect(far.message).not.toContain("Did you mean");
    expect(thrown(() => findCatalogEntry("atelier/gradient-legacx")).message).not.toContain("gradient-legacy");
  });

  it("an unknown ID named in a request body field answers invalid_parameter on that field, with the did-you-mean", () => {
    const err = thrown(() => findCatalogEntry("atelier/gradiant", "model"));
    expect(err.code).toBe("invalid_parameter");
    expect(err.status).toBe(400);
    expect(err.param).toBe("model");
    expect(err.message).toContain('Did you mean "atelier/gradient"?');
  });

  it("gives the IETF deprecation headers for a deprecated entry", () => {
    const classic = findCatalogEntry("atelier/gradient-classic").model;
    const headers = deprecationHeaders(classic);
    // 2026-10-01T00:00:00Z
    expect(headers.Deprecation).toBe("@1790812800");
    expect(headers.Sunset).toBe("Tue, 31 Dec 2030 00:00:00 GMT");
    expect(headers.Sunset).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(headers.Link).toBe('</v1/models/atelier/gradient>; rel="successor-version"');
  });

  it("gives no headers for a current entry, and no Link without a replacement", () => {
    expect(deprecationHeaders(findCatalogEntry("atelier/gradient").model)).toEqual({});
    const headers = deprecationHeaders({
      deprecation: {
        deprecated_at: "2026-01-01T00:00:00.000Z",
        sunset_at: "2027-01-01T00:00:00.000Z",
        replaced_by: null,
      },
    });
    expect(headers).toEqual({ Deprecation: "@1767225600", Sunset: "Fri, 01 Jan 2027 00:00:00 GMT" });
  });

  it("tells retired from deprecated by the sunset date", () => {
    const lifecycle = {
      deprecated_at: "2026-01-01T00:00:00.000Z",
      sunset_at: "2026-06-01T00:00:00.000Z",
      replaced_by: null,
    };
    expect(isRetired(null)).toBe(false);
    expect(isRetired(lifecycle, Date.parse("2026-05-31T23:59:59.999Z"))).toBe(false);
    expect(isRetired(lifecycle, Date.parse("2026-06-01T00:00:00.000Z"))).toBe(true);
  });

  it("splits a model ID into base and version", () => {
    expect(splitModelId("atelier/gradient-poster@2")).toEqual({ base: "atelier/gradient-poster", version: 2 });
    expect(splitModelId("atelier/gradient")).toEqual({ base: "atelier/gradient", version: null });
  });

  it("needs generations:read to list or read models", async () => {
    const without = scopedCtx(SCOPES.filter((s) => s !== "generations:read"));
    for (const fn of [() => listModels(without), () => getModel(without, { id: "atelier/gradient" })]) {
      const err = thrown(fn);
      expect(err.code).toBe("permission_denied");
      expect(err.message).toContain('"generations:read"');
    }
    expect((await listModels(scopedCtx(["generations:read"]))).data.length).toBe((await listCatalog(db)).data.length);
    expect((await getModel(scopedCtx(["generations:read"]), { id: "atelier/gradient" })).id).toBe("atelier/gradient");
  });
});
