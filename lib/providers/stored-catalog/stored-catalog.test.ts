// The remote catalog in the store, on both stores: the providers file applied (who wins, applies
// at once), documents refused with the field named by the file's own parser, built-in ids
// refused, revisions kept for queued runs, pasted keys encrypted and never read back, and a
// change reaching another process's store handle.
import { readFileSync } from "node:fs";
import path from "node:path";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  allCatalogEntries,
  definitionAtRevision,
  findCatalogEntry,
  registerRemoteModels,
  setRevisionResolver,
} from "../../core/catalog/catalog";
import { catalogVersion, readRemoteProvider, announceCatalogChangesOf } from "../../core/catalog/remote-store";
import { announceToEveryProcess, connectCrossProcessSignals } from "../../engine/cross-process";
import { createRunSignals } from "../../engine/run-signals";
import { ApiError } from "../../primitives/errors";
import { LIMITS } from "../../primitives/limits";
import { sqliteFileIn, type Store } from "../../store/store";
import { openSameStore, openTestStore, testDialect, type TestStore } from "../../store/testing/test-store";
import { providersFileDocuments } from "../providers-file";
import { applyProvidersFile, storedButNotInFile } from "./apply-file";
import {
  addProvider,
  editProvider,
  listStoredEntries,
  listStoredProviders,
  removeProvider,
  type CatalogCtx,
} from "./catalog-verbs";
import { addEntry, deprecateEntry, editEntry, publishEntry, retireEntry } from "./entry-verbs";
import { watchStoredCatalog } from "./catalog-watch";
import { loadStoredCatalog, storedProviders } from "./load";
import { rekeyStoredSecrets } from "./rekey";
import { createWorkspace } from "../../core/workspaces/workspaces";
import { createUser } from "../../core/workspaces/users";
import { opsPrincipal } from "../../core/ops/ops-principal";
import type { Ctx } from "../../core/context";
import { runModelForTest, testRunTools } from "../../models/testing/test-tools";
import { startComfyFake } from "../comfyui/testing/comfyui-fake";

type Json = Record<string, unknown>;
const ENV = { ACME_API_KEY: "sk-acme-from-env" };
const SECRET_KEY = "stored-catalog-test-secret-key-0123456789";
const PASTED = "sk-pasted-9f8e7d6c5b4a";
const silent = pino({ level: "silent" });
const FIXTURES = path.resolve(__dirname, "../../../e2e/api/fixtures/comfyui");

function settings(id: string, overrides: Json = {}): Json {
  return {
    id,
    kind: "openai-images",
    base_url: `https://api.${id}.example`,
    api_key_env: "ACME_API_KEY",
    ...overrides,
  };
}

function entry(id: string, overrides: Json = {}): Json {
  return {
    id,
    upstream_model: "image-1",
    name: "Acme Image 1",
    description: "Acme's first image model.",
    modality: "image",
    tasks: ["text-to-image"],
    input_schema: {
      type: "object",
      properties: {
        prompt: { type: "string", title: "Prompt" },
        n: { type: "integer", minimum: 1, maximum: 4, default: 1 },
      },
      required: ["prompt"],
      additionalProperties: false,
    },
    pricing: { unit: "image", usd: "0.04", drivers: ["n"] },
    ...overrides,
  };
}

function fileOf(providers: Json[]) {
  return providersFileDocuments(JSON.stringify({ providers }), ENV).documents;
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function refusal(promise: Promise<unknown>): Promise<{ param: string | null; message: string }> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    return { param: (e as unknown as { param: string | null }).param ?? null, message: e.message };
  }
  throw new Error("expected a refusal");
}

/**
 * Only an operator reads or changes the catalog: never called, it only has to type-check, and
 * `tsc --noEmit` fails on an expect-error line that compiles.
 */
export function withoutTheOperator(member: Ctx, base: Omit<CatalogCtx, "actingAs">): void {
  // @ts-expect-error a signed-in member's Ctx is no operator, though it has a db
  void listStoredProviders({ db: member.db, actingAs: member });
  // @ts-expect-error nor is a context that says nothing of who asks
  void addProvider(base, { document: {} });
}

describe(`the remote catalog in the store (${testDialect()})`, () => {
  let t: TestStore;
  let ctx: CatalogCtx;
  const closers: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    t = await openTestStore();
    ctx = { db: t.store.db, secretKey: SECRET_KEY, env: ENV, actingAs: "cli" };
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    registerRemoteModels([]);
    setRevisionResolver(null);
    await t?.cleanup();
  });

  describe("applying the providers file", () => {
    it("creates providers and published entries; an unchanged file keeps store edits; a changed file wins", async () => {
      const file = [{ ...settings("applied"), entries: [entry("applied/one"), entry("applied/two")] }];
      const first = await applyProvidersFile(ctx, fileOf(file));
      expect(first).toEqual([
        { id: "applied", provider: "added", added: ["applied/one", "applied/two"], updated: [], kept: [] },
      ]);
      const entries = await listStoredEntries(ctx, { providerId: "applied" });
      expect(entries.map((e) => [e.id, e.state, e.source])).toEqual([
        ["applied/one", "published", "file"],
        ["applied/two", "published", "file"],
      ]);

      // Applied again as it is: nothing to do.
      const version = await catalogVersion(t.store.db);
      expect(await applyProvidersFile(ctx, fileOf(file))).toEqual([
        { id: "applied", provider: "unchanged", added: [], updated: [], kept: [] },
      ]);
      expect(await catalogVersion(t.store.db)).toBe(version);

      // Edited in the store; the file, unchanged, leaves the edit alone.
      await editEntry(ctx, { id: "applied/one", document: entry("applied/one", { name: "Renamed in the studio" }) });
      await editProvider(ctx, { id: "applied", document: settings("applied", { timeout_ms: 9000 }) });
      expect(await applyProvidersFile(ctx, fileOf(file))).toEqual([
        { id: "applied", provider: "kept", added: [], updated: [], kept: ["applied/one"] },
      ]);
      const kept = (await listStoredEntries(ctx)).find((e) => e.id === "applied/one")!;
      expect(kept.document.name).toBe("Renamed in the studio");
      expect(JSON.parse((await readRemoteProvider(t.store.db, "applied"))!.settings_json).timeout_ms).toBe(9000);

      // The file changes the entry and the provider: the file wins; a removed entry stays.
      const changed = [
        { ...settings("applied", { timeout_ms: 5000 }), entries: [entry("applied/one", { name: "From the file" })] },
      ];
      expect(await applyProvidersFile(ctx, fileOf(changed))).toEqual([
        { id: "applied", provider: "updated", added: [], updated: ["applied/one"], kept: [] },
      ]);
      const after = await listStoredEntries(ctx, { providerId: "applied" });
      expect(after.map((e) => [e.id, e.document.name])).toEqual([
        ["applied/one", "From the file"],
        ["applied/two", "Acme Image 1"],
      ]);
      expect(JSON.parse((await readRemoteProvider(t.store.db, "applied"))!.settings_json).timeout_ms).toBe(5000);
      // What the file no longer names is said, not removed.
      expect(await storedButNotInFile(t.store.db, fileOf(changed))).toMatchObject({ entries: ["applied/two"] });

      const audit = await t.store.db
        .selectFrom("audit_events")
        .selectAll()
        .where("target_id", "=", "applied")
        .execute();
      expect(audit.map((a) => a.action)).toEqual(["provider.applied", "provider.edited", "provider.applied"]);
    });

    it("stores a ComfyUI workflow given as a path inline", async () => {
      const text = (await import("node:fs")).readFileSync(path.join(FIXTURES, "providers.json"), "utf8");
      const { documents } = providersFileDocuments(text, ENV, FIXTURES);
      const doc = documents[0]!;
      await applyProvidersFile({ ...ctx, baseDir: FIXTURES }, [
        {
          ...doc,
          id: "gpu-inline",
          settings: { ...doc.settings, id: "gpu-inline" },
          entries: doc.entries.map((e) => ({
            id: `gpu-inline/${e.id.split("/")[1]}`,
            document: { ...e.document, id: `gpu-inline/${e.id.split("/")[1]}` },
          })),
        },
      ]);
      const stored = await listStoredEntries(ctx, { providerId: "gpu-inline" });
      expect(stored.length).toBeGreaterThan(0);
      for (const e of stored) expect(typeof e.document.workflow).toBe("object");
    });

    it("two processes applying at once neither fail nor duplicate", async () => {
      const other = openSameStore(t);
      closers.push(() => other.close());
      const file = fileOf([{ ...settings("racing"), entries: [entry("racing/a"), entry("racing/b")] }]);
      const results = await Promise.all([
        applyProvidersFile(ctx, file),
        applyProvidersFile({ ...ctx, db: other.db }, file),
        applyProvidersFile(ctx, file),
      ]);
      expect(results.filter((r) => r[0]!.provider === "added")).toHaveLength(1);
      expect(results.filter((r) => r[0]!.provider === "unchanged")).toHaveLength(2);
      expect((await listStoredEntries(ctx, { providerId: "racing" })).map((e) => e.id)).toEqual([
        "racing/a",
        "racing/b",
      ]);
    });
  });

  describe("refusals name the field, as the providers file's", () => {
    beforeAll(async () => {
      await addProvider(ctx, { document: settings("refusing") });
      await addProvider(ctx, {
        document: { id: "refusing-comfy", kind: "comfyui", base_url: "http://127.0.0.1:8188" },
      });
    });
    const schema = (entry("x/y").input_schema as Json) ?? {};
    it.each([
      [
        "a schema that is not 2020-12",
        { input_schema: { ...schema, $schema: "http://json-schema.org/draft-07/schema#" } },
        "entry.input_schema.$schema",
      ],
      [
        "a schema not closed",
        { input_schema: { ...schema, additionalProperties: true } },
        "entry.input_schema.additionalProperties",
      ],
      [
        "a $ref outside the document",
        {
          input_schema: {
            ...schema,
            properties: { prompt: { $ref: "https://evil.example/schema.json" } },
          },
        },
        "entry.input_schema",
      ],
      ["a price that is not a decimal", { pricing: { unit: "image", usd: "4e-2" } }, "entry.pricing.usd"],
      [
        "a $id in the schema",
        { input_schema: { ...schema, properties: { prompt: { type: "string", $id: "https://acme.example/p" } } } },
        "entry.input_schema.properties.prompt.$id",
      ],
      ["no pricing at all", { pricing: undefined }, "entry.pricing"],
      ["a NUL byte", { description: "fine\u0000not" }, "entry.description"],
      [
        "a NUL byte deep in the schema",
        { input_schema: { ...schema, description: "a\u0000b" } },
        "entry.input_schema.description",
      ],
      ["a prototype key", JSON.parse('{"constructor": {"x": 1}}') as Json, "entry.constructor"],
      [
        "a prototype key in the schema",
        {
          input_schema: {
            ...schema,
            properties: JSON.parse(
              '{"prompt": {"type": "string"}, "n": {"type": "integer"}, "__proto__": {"type": "string"}}',
            ) as Json,
          },
        },
        "entry.input_schema.properties.__proto__",
      ],
      ["a built-in's id", { id: "atelier/artwork" }, "entry.id"],
      ["examples that are not a list", { examples: { title: "A fox" } }, "entry.examples"],
      [
        "an example's input the schema refuses",
        {
          examples: [
            { title: "A fox", input: { prompt: "fox" } },
            { title: "Many", input: { prompt: "fox", n: 9 } },
          ],
        },
        "entry.examples[1].input.n",
      ],
      [
        "a NUL byte in an example's title",
        { examples: [{ title: "a\u0000b", input: { prompt: "x" } }] },
        "entry.examples[0].title",
      ],
      [
        "a prototype key in an example's input",
        { examples: [{ title: "A fox", input: JSON.parse('{"prompt": "fox", "constructor": {"n": 2}}') as Json }] },
        "entry.examples[0].input.constructor",
      ],
      [
        "an unknown key in an example",
        { examples: [{ title: "A fox", input: {}, seed: 1 }] },
        "entry.examples[0].seed",
      ],
    ])("refuses %s", async (_what, change, param) => {
      const refused = await refusal(addEntry(ctx, { providerId: "refusing", document: entry("refusing/e", change) }));
      expect(refused.param).toBe(param);
      expect(refused.message.startsWith(param)).toBe(true);
    });

    it("refuses a huge document, naming the limit", async () => {
      const big = "x".repeat(LIMITS.catalogDocumentBytes.entry);
      const refused = await refusal(
        addEntry(ctx, { providerId: "refusing", document: entry("refusing/big", { description: big }) }),
      );
      expect(refused).toEqual({
        param: "entry",
        message: expect.stringContaining(`at most ${LIMITS.catalogDocumentBytes.entry} bytes`),
      });
    });

    it("refuses a binding to a ComfyUI node the workflow lacks", async () => {
      const document = {
        id: "refusing-comfy/sd",
        name: "SD",
        description: "A workflow.",
        modality: "image",
        tasks: ["text-to-image"],
        workflow: { "6": { class_type: "CLIPTextEncode", inputs: { text: "a cat" } } },
        bindings: { prompt: { node: "99", input: "text" } },
        input_schema: { type: "object", properties: { prompt: { type: "string" } }, additionalProperties: false },
        pricing: { unit: "image", usd: "0.01" },
      };
      const refused = await refusal(addEntry(ctx, { providerId: "refusing-comfy", document }));
      expect(refused.param).toBe("entry.bindings.prompt.node");
    });

    it("refuses a provider with a bad base URL, and one that is unknown", async () => {
      expect((await refusal(addProvider(ctx, { document: settings("bad-url", { base_url: "ftp://x" }) }))).param).toBe(
        "provider.base_url",
      );
      expect((await refusal(addEntry(ctx, { providerId: "nobody", document: entry("nobody/x") }))).message).toContain(
        'No provider "nobody"',
      );
    });
  });

  describe("revisions and the lifecycle", () => {
    it("a published entry's price change makes a new revision; the old one stays runnable", async () => {
      await addProvider(ctx, { document: settings("revising") });
      const created = await addEntry(ctx, {
        providerId: "revising",
        document: entry("revising/img", { revision: "2026-01-05" }),
      });
      expect(created).toMatchObject({ state: "draft", revision: "2026-01-05" });
      // A draft is not in the catalog.
      await loadStoredCatalog({ db: t.store.db, secretKey: SECRET_KEY, env: ENV });
      expect(() => findCatalogEntry("revising/img")).toThrow(/No model/);
      await publishEntry(ctx, { id: "revising/img" });
      // Words only: the same revision.
      const reworded = await editEntry(ctx, {
        id: "revising/img",
        document: entry("revising/img", { revision: "2026-01-05", description: "New words." }),
      });
      expect(reworded.revision).toBe("2026-01-05");
      const today = new Date().toISOString().slice(0, 10);
      const repriced = await editEntry(ctx, {
        id: "revising/img",
        document: entry("revising/img", { pricing: { unit: "image", usd: "0.05" } }),
      });
      expect(repriced.revision).toBe(today);
      const again = await editEntry(ctx, {
        id: "revising/img",
        document: entry("revising/img", { upstream_model: "image-2" }),
      });
      expect(again.revision).toBe(`${today}.2`);

      await loadStoredCatalog({ db: t.store.db, secretKey: SECRET_KEY, env: ENV });
      expect(findCatalogEntry("revising/img").definition).toMatchObject({ revision: `${today}.2` });
      const old = await definitionAtRevision(t.store.db, "revising/img", "2026-01-05");
      expect(old.revision).toBe("2026-01-05");
      expect(old.pricing.usd).toBe("0.04");
      const middle = await definitionAtRevision(t.store.db, "revising/img", today);
      expect(middle.pricing.usd).toBe("0.05");
    });

    it("examples reach the catalog's definition, and an edit of them keeps the revision", async () => {
      await addProvider(ctx, { document: settings("showing") });
      const fox = { title: "A fox", input: { prompt: "a fox", n: 2 } };
      await addEntry(ctx, {
        providerId: "showing",
        document: entry("showing/img", { revision: "2026-01-05", examples: [fox] }),
        publish: true,
      });
      const heron = { title: "A heron", input: { prompt: "a heron" } };
      const edited = await editEntry(ctx, {
        id: "showing/img",
        document: entry("showing/img", { revision: "2026-01-05", examples: [heron, fox] }),
      });
      // They fill the model page's form only: a run does what it did, so no new revision.
      expect(edited.revision).toBe("2026-01-05");
      await loadStoredCatalog({ db: t.store.db, secretKey: SECRET_KEY, env: ENV });
      expect(findCatalogEntry("showing/img").definition).toMatchObject({
        revision: "2026-01-05",
        examples: [heron, fox],
      });
      const dropped = await editEntry(ctx, {
        id: "showing/img",
        document: entry("showing/img", { revision: "2026-01-05" }),
      });
      expect(dropped.revision).toBe("2026-01-05");
      await loadStoredCatalog({ db: t.store.db, secretKey: SECRET_KEY, env: ENV });
      expect(findCatalogEntry("showing/img").definition.examples).toBeUndefined();
    });

    it("deprecate and retire set the file's lifecycle; a retired entry answers 410", async () => {
      await addProvider(ctx, { document: settings("aging") });
      await addEntry(ctx, { providerId: "aging", document: entry("aging/old"), publish: true });
      await addEntry(ctx, { providerId: "aging", document: entry("aging/new"), publish: true });
      const sunset = new Date(Date.now() + 86_400_000).toISOString();
      const deprecated = await deprecateEntry(ctx, { id: "aging/old", sunsetAt: sunset, replacedBy: "aging/new" });
      expect(deprecated.document.lifecycle).toMatchObject({ sunset_at: sunset, replaced_by: "aging/new" });
      expect((await refusal(deprecateEntry(ctx, { id: "aging/old", sunsetAt: "tomorrow" }))).param).toBe(
        "entry.lifecycle.sunset_at",
      );
      await loadStoredCatalog({ db: t.store.db, secretKey: SECRET_KEY, env: ENV });
      expect(findCatalogEntry("aging/old").model.deprecation).toMatchObject({ replaced_by: "aging/new" });
      await retireEntry(ctx, { id: "aging/old", replacedBy: "aging/new" });
      await loadStoredCatalog({ db: t.store.db, secretKey: SECRET_KEY, env: ENV });
      expect(() => findCatalogEntry("aging/old")).toThrow(/retired on .* Use aging\/new instead/);
      const actions = await t.store.db
        .selectFrom("audit_events")
        .select("action")
        .where("target_id", "=", "aging/old")
        .orderBy("created_at")
        .execute();
      expect(actions.map((a) => a.action)).toEqual(["entry.published", "entry.deprecated", "entry.retired"]);
    });
  });

  describe("reloading", () => {
    it("keeps a provider's adapter, and so its health, while its settings stay", async () => {
      const load = { db: t.store.db, secretKey: SECRET_KEY, env: ENV };
      const down = settings("healthy", { base_url: "http://127.0.0.1:9", timeout_ms: 500 });
      await addProvider(ctx, { document: down });
      await addEntry(ctx, { providerId: "healthy", document: entry("healthy/img"), publish: true });
      await loadStoredCatalog(load);
      const first = findCatalogEntry("healthy/img").definition;
      await expect(first.run({ prompt: "a lighthouse", n: 1 }, testRunTools())).rejects.toThrow();
      expect(first.unavailableReason?.()).toBeTruthy();

      // Another entry published: the catalog is built again, with the provider's adapter as it was.
      await addEntry(ctx, { providerId: "healthy", document: entry("healthy/two"), publish: true });
      await loadStoredCatalog(load);
      const again = findCatalogEntry("healthy/img").definition;
      expect(again).not.toBe(first);
      expect(again.unavailableReason?.()).toBeTruthy();

      // The provider's settings changed: a new adapter, a fresh health record.
      await editProvider(ctx, { id: "healthy", document: { ...down, timeout_ms: 600 } });
      await loadStoredCatalog(load);
      expect(findCatalogEntry("healthy/img").definition.unavailableReason?.() ?? null).toBeNull();
    });
    it("polls a job of an entry published after its provider's adapter was built", async () => {
      const comfy = await startComfyFake();
      closers.push(() => comfy.close());
      const load = { db: t.store.db, secretKey: SECRET_KEY, env: ENV };
      const workflow = JSON.parse(readFileSync(path.join(FIXTURES, "workflows/sdxl.json"), "utf8")) as Json;
      const comfyEntry = (id: string): Json => ({
        id,
        name: "Box SDXL",
        description: "A workflow.",
        modality: "image",
        tasks: ["text-to-image"],
        workflow,
        bindings: { prompt: { node: "6", input: "text" } },
        input_schema: {
          type: "object",
          properties: { prompt: { type: "string" } },
          required: ["prompt"],
          additionalProperties: false,
        },
        pricing: { unit: "image", usd: "0.01" },
      });
      await addProvider(ctx, { document: { id: "late-box", kind: "comfyui", base_url: comfy.url } });
      await addEntry(ctx, { providerId: "late-box", document: comfyEntry("late-box/first"), publish: true });
      await loadStoredCatalog(load);
      await runModelForTest(findCatalogEntry("late-box/first").definition, { prompt: "a lighthouse" });
      // Published later: the catalog is built again around the adapter kept from the first load,
      // and the new entry's job is polled with the run's entry, not the adapter's first list.
      await addEntry(ctx, { providerId: "late-box", document: comfyEntry("late-box/second"), publish: true });
      await loadStoredCatalog(load);
      const outputs = await runModelForTest(findCatalogEntry("late-box/second").definition, { prompt: "a heron" });
      expect(outputs).toHaveLength(1);
      expect(comfy.prompts.at(-1)!.prompt["6"]!.inputs.text).toBe("a heron");
    });
  });

  describe("keys", () => {
    it("a pasted key is stored encrypted, used by the adapter, and never read back or audited", async () => {
      const added = await addProvider(ctx, {
        document: settings("keyed", { api_key_env: undefined }),
        apiKey: PASTED,
      });
      expect(added.credential).toBe("secret set");
      await addEntry(ctx, { providerId: "keyed", document: entry("keyed/img"), publish: true });
      const row = await readRemoteProvider(t.store.db, "keyed");
      expect(row!.secret_ciphertext).toMatch(/^v1\./);
      expect(JSON.stringify(row)).not.toContain(PASTED);
      expect(JSON.stringify(await listStoredProviders(ctx))).not.toContain(PASTED);
      const audit = await t.store.db.selectFrom("audit_events").selectAll().where("target_id", "=", "keyed").execute();
      expect(JSON.stringify(audit)).not.toContain(PASTED);
      expect(JSON.parse(audit[0]!.changes_json as string).after.api_key).toBe("secret set");

      const built = await storedProviders({ db: t.store.db, secretKey: SECRET_KEY, env: ENV });
      expect(built.find((p) => p.id === "keyed")!.apiKey).toBe(PASTED);

      // Under another SECRET_KEY the key does not open: the provider is left out, with a warning.
      const warnings: string[] = [];
      const other = await storedProviders({
        db: t.store.db,
        secretKey: "another-secret-key-another-secret-key-0",
        env: ENV,
        warn: (m) => warnings.push(m),
      });
      expect(other.find((p) => p.id === "keyed")).toBeUndefined();
      expect(warnings.join("\n")).toContain("stored provider keyed is left out");
      expect(warnings.join("\n")).not.toContain(PASTED);

      // Both a variable and a pasted key: refused.
      expect((await refusal(addProvider(ctx, { document: settings("both"), apiKey: PASTED }))).param).toBe(
        "provider.api_key_env",
      );
      // Editing with a variable instead drops the stored key.
      const edited = await editProvider(ctx, { id: "keyed", document: settings("keyed") });
      expect(edited.credential).toBe("environment variable ACME_API_KEY");
      expect((await readRemoteProvider(t.store.db, "keyed"))!.secret_ciphertext).toBeNull();
      const removed = await removeProvider(ctx, { id: "keyed" });
      expect(removed).toEqual({ id: "keyed", entries: 1 });
    });
  });

  describe("a change reaches every process", () => {
    it("through the signal bridge to another store handle, and by the version poll without one", async () => {
      const sqliteFile = t.postgres ? null : sqliteFileIn(t.dataDir);
      const bridged = async (store: Store) => {
        const signals = createRunSignals();
        const bridge = await connectCrossProcessSignals(store, t.postgres?.databaseUrl ?? null, signals, silent, {
          pollMs: 600_000,
          ...(sqliteFile ? { sqliteFile } : {}),
        });
        closers.push(() => bridge.close());
        return signals;
      };
      const elsewhere = openSameStore(t);
      closers.push(() => elsewhere.close());
      const here = await bridged(t.store);
      const there = await bridged(elsewhere);
      closers.push(announceCatalogChangesOf(t.store.db, here));
      let heard = 0;
      closers.push(there.onCatalogChanged(() => heard++));

      await addProvider(ctx, { document: settings("signaled") });
      await until(() => heard === 1, "the other process to hear the change");

      // The admin CLI's announcement, from a process with no bridge.
      await announceToEveryProcess(t.store, sqliteFile, { kind: "catalog_changed" });
      await until(() => heard === 2, "the other process to hear the CLI");

      // A watch on the other handle reloads the catalog on the signal.
      const watch = await watchStoredCatalog({ db: elsewhere.db, secretKey: SECRET_KEY, env: ENV }, there, {
        pollMs: 600_000,
      });
      closers.push(() => watch.stop());
      await addEntry(ctx, { providerId: "signaled", document: entry("signaled/img"), publish: true });
      await until(() => allCatalogEntries().some((d) => d.id === "signaled/img"), "the entry in the catalog");

      // Without any signal, the version poll.
      const polled = await watchStoredCatalog(
        { db: elsewhere.db, secretKey: SECRET_KEY, env: ENV },
        createRunSignals(),
        {
          pollMs: 50,
        },
      );
      closers.push(() => polled.stop());
      await t.store.db.transaction().execute(async () => undefined);
      await addEntry(
        { ...ctx, db: openSameStoreDb() },
        { providerId: "signaled", document: entry("signaled/two"), publish: true },
      );
      await until(() => allCatalogEntries().some((d) => d.id === "signaled/two"), "the polled entry in the catalog");
    });

    let spare: Store | null = null;
    function openSameStoreDb() {
      spare ??= openSameStore(t);
      closers.push(() => {
        const s = spare;
        spare = null;
        return s?.close();
      });
      return spare.db;
    }
  });

  it("an entry's routes name stored providers: loaded as one entry served by both, refused naming the field", async () => {
    await addProvider(ctx, { document: settings("route-main") });
    await addProvider(ctx, { document: settings("route-backup") });
    const routed = entry("route-main/img", {
      routes: { policy: "ordered", targets: [{ provider: "route-backup", upstream_model: "image-1b" }] },
    });
    const refused = await refusal(
      addEntry(ctx, {
        providerId: "route-main",
        document: { ...routed, routes: { targets: [{ provider: "route-nowhere", upstream_model: "x" }] } },
      }),
    );
    expect(refused.param).toBe("entry.routes.targets[0].provider");
    expect(refused.message).toContain("names no provider of the catalog");
    // A stored ai-sdk provider is held to its package's modalities, as its own entries are.
    await addProvider(ctx, {
      document: { id: "route-voices", kind: "ai-sdk", provider: "elevenlabs", api_key_env: "VOICES_API_KEY" },
    });
    expect(
      await refusal(
        addEntry(ctx, {
          providerId: "route-main",
          document: { ...routed, routes: { targets: [{ provider: "route-voices", upstream_model: "eleven_v3" }] } },
        }),
      ),
    ).toEqual({
      param: "entry.routes.targets[0].provider",
      message:
        "entry.routes.targets[0].provider names a provider that makes no image: @ai-sdk/elevenlabs makes audio (speech) only.",
    });
    // And so is an entry added to it directly: an image entry under a speech-only package.
    const { routes: _unrouted, ...voiced } = routed;
    expect(
      await refusal(
        addEntry(ctx, {
          providerId: "route-voices",
          document: { ...voiced, id: "route-voices/img", upstream_model: "eleven_v3" },
        }),
      ),
    ).toEqual({
      param: "entry.modality",
      message: 'entry.modality must be one of "audio": @ai-sdk/elevenlabs makes audio (speech) only; got "image".',
    });
    await removeProvider(ctx, { id: "route-voices" });
    await addEntry(ctx, { providerId: "route-main", document: routed, publish: true });
    const warnings: string[] = [];
    await loadStoredCatalog({ db: t.store.db, secretKey: SECRET_KEY, env: ENV, warn: (w) => warnings.push(w) });
    expect(warnings).toEqual([]);
    const definition = findCatalogEntry("route-main/img").definition;
    expect(definition).toMatchObject({ provider: "route-main", routeProviders: ["route-main", "route-backup"] });
    // A provider an entry routes through cannot go while it does: its routes are edited first.
    expect(await refusal(removeProvider(ctx, { id: "route-backup" }))).toEqual({
      param: "provider",
      message: "route-main/img sends runs through route-backup: take it out of its routes first.",
    });
    const { routes: _routes, ...direct } = routed;
    await editEntry(ctx, { id: "route-main/img", document: direct });
    await removeProvider(ctx, { id: "route-backup" });
    await loadStoredCatalog({ db: t.store.db, secretKey: SECRET_KEY, env: ENV });
    expect(findCatalogEntry("route-main/img").definition).toMatchObject({ provider: "route-main" });
    expect(findCatalogEntry("route-main/img").definition.routeProviders).toBeUndefined();
  });

  it("a hosted API's provider takes its key pasted instead of from a variable, and refuses neither", async () => {
    const hosted = { id: "hosted-replicate", kind: "replicate" };
    expect(await refusal(addProvider(ctx, { document: hosted }))).toMatchObject({
      param: "provider.api_key_env",
      message: expect.stringContaining("is required") as unknown as string,
    });
    const added = await addProvider(ctx, { document: hosted, apiKey: PASTED });
    expect(added).toMatchObject({ id: "hosted-replicate", kind: "replicate", credential: "secret set" });
  });

  it("an operator's change is audited as that user, from their address", async () => {
    const home = await createWorkspace({ db: t.store.db }, { name: "catalog operators" });
    const user = await createUser(
      { db: t.store.db },
      { email: `ops-${Math.random()}@example.com`, password: "long enough", workspaceId: home.id, role: "owner", ops: true }, // prettier-ignore
    );
    const ops = await opsPrincipal(t.store.db, user.id, undefined, "203.0.113.9");
    await addProvider({ ...ctx, actingAs: ops }, { document: settings("by-ops") });
    const audit = await t.store.db.selectFrom("audit_events").selectAll().where("target_id", "=", "by-ops").execute();
    expect(audit.map((a) => [a.action, a.actor_type, a.actor_id, a.ip])).toEqual([
      ["provider.added", "user", user.id, "203.0.113.9"],
    ]);
  });
});

describe(`rotating SECRET_KEY (${testDialect()})`, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("re-seals every stored key under the new SECRET_KEY in one go; a key neither opens stops it", async () => {
    const old: CatalogCtx = { db: t.store.db, secretKey: SECRET_KEY, env: ENV, actingAs: "cli" };
    await addProvider(old, { document: settings("rot-a", { api_key_env: undefined }), apiKey: "sk-a" });
    await addProvider(old, { document: settings("rot-b", { api_key_env: undefined }), apiKey: "sk-b" });
    const current: CatalogCtx = { ...old, secretKey: "the-new-secret-key-the-new-secret-key-00" };
    expect(await rekeyStoredSecrets(current, { oldSecretKey: SECRET_KEY })).toEqual({
      rekeyed: ["rot-a", "rot-b"],
      already: [],
    });
    const built = await storedProviders({ db: t.store.db, secretKey: current.secretKey, env: ENV });
    expect(built.map((p) => [p.id, p.apiKey])).toEqual([
      ["rot-a", "sk-a"],
      ["rot-b", "sk-b"],
    ]);
    // Run again: nothing left to move.
    expect(await rekeyStoredSecrets(current, { oldSecretKey: SECRET_KEY })).toEqual({
      rekeyed: [],
      already: ["rot-a", "rot-b"],
    });
    // A wrong old key and a wrong current key: refused, nothing changed.
    const before = await t.store.db.selectFrom("remote_providers").select("secret_ciphertext").orderBy("id").execute();
    const refused = await refusal(
      rekeyStoredSecrets(
        { ...old, secretKey: "yet-another-secret-key-yet-another-sec" },
        { oldSecretKey: "wrong-wrong-wrong-wrong-wrong-wrong-00" },
      ),
    );
    expect(refused.param).toBe("old-secret-key-env");
    expect(await t.store.db.selectFrom("remote_providers").select("secret_ciphertext").orderBy("id").execute()).toEqual(
      before,
    );
  });
});
