// Availability read from the store on both dialects: a preset is out of service while one of its
// steps is, provider outages (shared by every process) keep the longest end and lapse, and an
// entry missing something on this server is not installed (a fact, not an outage: no Retry-After).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import { getPublicModel, listCatalog, registerRemoteModels } from "./catalog";
import { ApiError } from "../../primitives/errors";
import { activePauses, availabilityOf, shareProviderHealth } from "./model-availability";
import { outOfServiceModelIds, pauseModel, resumeModel } from "./model-pauses";
import { quoteRun } from "../runs/quotes";
import { createGeneration } from "../runs/generations";
import { createWorkspace } from "../workspaces/workspaces";
import { objectSchema } from "../../models/common/fields";
import type { ModelDefinition } from "./model-definition";
import { CLI_AUDIT } from "../audit/audit-writer";

const BASE: Omit<ModelDefinition, "id" | "type"> = {
  name: "x",
  creator: "Test",
  modality: "image",
  tasks: ["text-to-image"],
  description: "test",
  revision: "2026-11-22",
  status: "stable",
  pricing: { unit: "run", usd: "0.01", drivers: [], overrides: [] },
  lifecycle: null,
  input_schema: objectSchema({}, []),
  run: async () => [],
};

// Built-in-like entries of this test file's catalog: one lacking a program on this server, and a
// preset that runs it as a step.
const lacking: ModelDefinition = {
  ...BASE,
  id: "test/needs-a-tool",
  type: "model",
  missingInstall: () => ({ what: "the tool program", install: "apt-get install tool" }),
};
const presetOfLacking: ModelDefinition = { ...BASE, id: "test/uses-the-tool@1", type: "preset", steps: [lacking] };
registerRemoteModels([lacking, presetOfLacking]);

const LACKING_MESSAGE =
  "test/needs-a-tool cannot run on this server: it needs the tool program, which is not installed. Install it (apt-get install tool) and restart Atelier.";

describe(`model availability (${testDialect()})`, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  const promo = { title: "Spring", prompt: "pastel mountains", duration: 2 };

  it("a preset is out of service while one of its step models is paused: catalog, quotes and runs say so", async () => {
    const db = t.store.db;
    const ctx = testCtx(t, (await createWorkspace({ db }, { name: "preset steps", creditMicros: 1_000_000 })).id);
    const until = new Date(Date.now() + 5 * 60_000).toISOString();
    await pauseModel(
      { db },
      { modelId: "atelier/music", until, reason: "the synthesiser is being tuned", audit: CLI_AUDIT },
    );
    try {
      const entries = new Map((await listCatalog(db)).data.map((m) => [m.id, m.availability]));
      expect(entries.get("atelier/music")).toMatchObject({ status: "out_of_service" });
      // @2 mixes a music bed; @1 does not use the music model and stays in service.
      expect(entries.get("atelier/promo-video@2")).toEqual({
        status: "out_of_service",
        message: "its step atelier/music is out of service (the synthesiser is being tuned)",
        until,
      });
      expect(entries.get("atelier/promo-video@1")).toMatchObject({ status: "available" });
      expect((await getPublicModel(db, { id: "atelier/promo-video" })).availability.status).toBe("out_of_service");

      const err = (await quoteRun(ctx, { model: "atelier/promo-video@2", input: promo }).catch(
        (e: unknown) => e,
      )) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: "service_unavailable", status: 503 });
      expect(err.message).toContain("atelier/music");
      expect(Number(err.headers["Retry-After"])).toBeGreaterThan(250);
      expect((await quoteRun(ctx, { model: "atelier/promo-video@1", input: promo })).quote.cost_usd).toBe("0.022");
      // Its queued runs wait in the engine like the step's own.
      const waiting = await outOfServiceModelIds(db);
      expect(waiting).toEqual(expect.arrayContaining(["atelier/music", "atelier/promo-video@2"]));
      expect(waiting).not.toContain("atelier/promo-video@1");
    } finally {
      await resumeModel({ db }, { modelId: "atelier/music", audit: CLI_AUDIT });
    }
    expect((await quoteRun(ctx, { model: "atelier/promo-video@2", input: promo })).quote.cost_usd).toBe("0.024");
  });

  it("an entry missing something on this server is not installed: the catalog says what and the fix; quotes and runs get 503 without Retry-After", async () => {
    const db = t.store.db;
    const ctx = testCtx(t, (await createWorkspace({ db }, { name: "not installed", creditMicros: 1_000_000 })).id);
    const notInstalled = { status: "not_installed", message: LACKING_MESSAGE, until: null };
    const entries = new Map((await listCatalog(db)).data.map((m) => [m.id, m.availability]));
    expect(entries.get("test/needs-a-tool")).toEqual(notInstalled);
    expect((await getPublicModel(db, { id: "test/needs-a-tool" })).availability).toEqual(notInstalled);
    // A preset running it as a step names the step.
    expect(entries.get("test/uses-the-tool@1")).toEqual({
      status: "not_installed",
      message:
        "test/uses-the-tool@1 cannot run on this server: its step test/needs-a-tool needs the tool program, which is not installed. Install it (apt-get install tool) and restart Atelier.",
      until: null,
    });

    for (const attempt of [
      () => quoteRun(ctx, { model: "test/needs-a-tool", input: {} }),
      () => createGeneration(ctx, { model: "test/needs-a-tool", input: {} }),
    ]) {
      const err = (await attempt().catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: "service_unavailable", status: 503, message: LACKING_MESSAGE });
      // Not an outage: nothing to wait for, so no Retry-After and no "for a while".
      expect(err.headers).toEqual({});
      expect(err.message).not.toMatch(/for a while|paused/);
    }
    const presetErr = (await quoteRun(ctx, { model: "test/uses-the-tool@1", input: {} }).catch(
      (e: unknown) => e,
    )) as ApiError;
    expect(presetErr).toMatchObject({ code: "service_unavailable", headers: {} });
    expect(presetErr.message).toContain("its step test/needs-a-tool needs the tool program");
    // Nothing was started or held.
    expect(
      await t.store.db.selectFrom("generations").select("id").where("workspace_id", "=", ctx.workspaceId).execute(),
    ).toEqual([]);

    // An ops pause on top does not turn it into a wait: it stays not installed.
    await pauseModel(
      { db },
      {
        modelId: "test/needs-a-tool",
        until: new Date(Date.now() + 60_000).toISOString(),
        reason: "maintenance",
        audit: CLI_AUDIT,
      },
    );
    try {
      expect((await getPublicModel(db, { id: "test/needs-a-tool" })).availability).toEqual(notInstalled);
      expect(
        ((await quoteRun(ctx, { model: "test/needs-a-tool", input: {} }).catch((e: unknown) => e)) as ApiError).headers,
      ).toEqual({});
    } finally {
      await resumeModel({ db }, { modelId: "test/needs-a-tool", audit: CLI_AUDIT });
    }
    // Runs already queued on it wait: another process on the store may have the program.
    expect(await outOfServiceModelIds(db)).toEqual(
      expect.arrayContaining(["test/needs-a-tool", "test/uses-the-tool@1"]),
    );
  });

  it("a preset whose step cannot run here (a provider down) is out of service too", () => {
    const base = BASE;
    const step: ModelDefinition = {
      ...base,
      id: "test/provider-busy",
      type: "model",
      unavailableReason: () => ({ message: "its provider is busy", until: null }),
    };
    const remote: ModelDefinition = { ...base, id: "test/remote", type: "model", provider: "acme" };
    const preset: ModelDefinition = { ...base, id: "test/preset@1", type: "preset", steps: [remote, step] };
    const none = { models: new Map(), providers: new Map() };
    expect(availabilityOf(preset, none)).toEqual({
      status: "out_of_service",
      message: "its step test/provider-busy is out of service (its provider is busy)",
      until: null,
    });
    const acmeDown = {
      models: new Map(),
      providers: new Map([["acme", { until: "2030-01-01T00:00:00.000Z", reason: "its provider acme is failing" }]]),
    };
    expect(availabilityOf({ ...preset, steps: [remote] }, acmeDown)).toEqual({
      status: "out_of_service",
      message: "its step test/remote is out of service (its provider acme is failing)",
      until: "2030-01-01T00:00:00.000Z",
    });
    expect(availabilityOf({ ...preset, steps: [remote] }, none).status).toBe("available");
  });

  it("a provider outage keeps its latest end, is read with the pauses in one go, lapses, and clears", async () => {
    const db = t.store.db;
    const soon = new Date(Date.now() + 10_000).toISOString();
    const later = new Date(Date.now() + 60_000).toISOString();
    await shareProviderHealth(db, "acme", { until: later, reason: "its provider acme is busy (HTTP 429)" });
    await shareProviderHealth(db, "acme", { until: soon, reason: "its provider acme is failing (HTTP 502)" });
    await pauseModel({ db }, { modelId: "atelier/qr-code", until: null, reason: "ops", audit: CLI_AUDIT });
    const pauses = await activePauses(db);
    // An earlier end does not pull an outage in; the latest reason is shown.
    expect(pauses.providers.get("acme")).toEqual({ until: later, reason: "its provider acme is failing (HTTP 502)" });
    expect(pauses.models.get("atelier/qr-code")).toEqual({ until: null, reason: "ops" });
    expect(pauses.models.has("acme")).toBe(false);
    expect(pauses.providers.has("atelier/qr-code")).toBe(false);
    await resumeModel({ db }, { modelId: "atelier/qr-code", audit: CLI_AUDIT });

    expect((await activePauses(db, new Date(Date.parse(later) + 1))).providers.has("acme")).toBe(false);
    await shareProviderHealth(db, "acme", null);
    expect((await activePauses(db)).providers.size).toBe(0);
    const rows = await db.selectFrom("provider_outages").selectAll().execute();
    expect(rows).toEqual([]);
  });
});
