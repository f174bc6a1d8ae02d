// Boot and the stored catalog, on both stores: a process that applies PROVIDERS_FILE (the server,
// a worker) puts its providers and entries in the store and serves them; a process started on
// that store with no providers file at all (or one that only reads: the admin CLI, the studio's
// thread) serves them too, from the store.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCatalogEntry, registerRemoteModels, setRevisionResolver } from "../core/catalog/catalog";
import { testDatabaseUrl, testDialect } from "../store/testing/test-store";
import { openConfiguredStore } from "./boot";
import { loadConfig } from "./config";

const FIXTURE = path.resolve(__dirname, "../../e2e/api/fixtures/comfyui/providers.json");

describe(`boot reads the remote catalog from the store (${testDialect()})`, () => {
  let dir: string;
  let databaseUrl = "";
  let schema: string | null = null;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "atelier-boot-catalog-"));
    const url = testDatabaseUrl();
    if (url) {
      schema = `boot_catalog_${randomBytes(4).toString("hex")}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`create schema ${schema}`);
      await client.end();
      databaseUrl = `${url}${url.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    }
  });
  afterAll(async () => {
    registerRemoteModels([]);
    setRevisionResolver(null);
    await rm(dir, { recursive: true, force: true });
    const url = testDatabaseUrl();
    if (url && schema) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema ${schema} cascade`);
      await client.end();
    }
  });

  it("applies PROVIDERS_FILE where asked, and serves the stored entries without it", async () => {
    const env = { DATA_DIR: dir, DATABASE_URL: databaseUrl };
    const withFile = loadConfig({ ...env, PROVIDERS_FILE: FIXTURE });
    // Only reading (the admin CLI): nothing applied, nothing served.
    const reader = await openConfiguredStore(withFile);
    expect(() => findCatalogEntry("gpu-box/sdxl")).toThrow(/No model/);
    await reader.close();

    const server = await openConfiguredStore(withFile, undefined, { applyProvidersFile: true });
    expect(findCatalogEntry("gpu-box/sdxl").definition).toMatchObject({ provider: "gpu-box" });
    const rows = await server.db.selectFrom("remote_entries").select(["id", "state", "source"]).orderBy("id").execute();
    expect(rows).toContainEqual({ id: "gpu-box/sdxl", state: "published", source: "file" });
    await server.close();

    registerRemoteModels([]);
    const bare = await openConfiguredStore(loadConfig(env));
    expect(findCatalogEntry("gpu-box/sdxl").definition).toMatchObject({ provider: "gpu-box" });
    await bare.close();

    // A file the store cannot take (the provider's kind changed under its stored entries) stops
    // the start as a mistake in the file does.
    const changedKind = path.join(dir, "providers.json");
    await writeFile(
      changedKind,
      JSON.stringify({
        providers: [
          {
            id: "gpu-box",
            kind: "openai-images",
            base_url: "http://127.0.0.1:9",
            entries: [
              {
                id: "gpu-box/other",
                upstream_model: "x",
                name: "Other",
                description: "Another kind.",
                modality: "image",
                tasks: ["text-to-image"],
                input_schema: {
                  type: "object",
                  additionalProperties: false,
                  required: ["prompt"],
                  properties: { prompt: { type: "string" } },
                },
                pricing: { unit: "image", usd: "0.01" },
              },
            ],
          },
        ],
      }),
    );
    await expect(
      openConfiguredStore(loadConfig({ ...env, PROVIDERS_FILE: changedKind }), undefined, { applyProvidersFile: true }),
    ).rejects.toThrow(/^PROVIDERS_FILE \(.*\): provider\.kind must stay "comfyui"/);
  });
});
