// The ops Providers page's read: each stored provider with how its key is given (never the key),
// its entries by state, the outage in force (a lapsed one is none) and its last failed runs of the
// day, newest first, at most five, another provider's and older ones left out.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import { createGeneration } from "../../core/runs/generations";
import { opsPrincipal, type OpsCtx } from "../../core/ops/ops-principal";
import { createUser } from "../../core/workspaces/users";
import { createWorkspace } from "../../core/workspaces/workspaces";
import { addProvider, type CatalogCtx } from "./catalog-verbs";
import { addEntry, publishEntry } from "./entry-verbs";
import { opsProviders } from "./ops-providers";

const PASTED = "sk-pasted-ops-providers-1234";

function entry(id: string) {
  return {
    id,
    upstream_model: "image-1",
    name: id,
    description: "An image model.",
    modality: "image",
    tasks: ["text-to-image"],
    input_schema: {
      type: "object",
      properties: { prompt: { type: "string" } },
      required: ["prompt"],
      additionalProperties: false,
    },
    pricing: { unit: "image", usd: "0.04" },
  };
}

describe(`the ops Providers page's read (${testDialect()})`, () => {
  let t: TestStore;
  let ops: OpsCtx;
  let ctx: CatalogCtx;

  beforeAll(async () => {
    t = await openTestStore();
    const home = await createWorkspace({ db: t.store.db }, { name: "providers ops", creditMicros: 10_000_000 });
    const user = await createUser(
      { db: t.store.db },
      { email: "ops-providers@example.com", password: "long enough", workspaceId: home.id, role: "owner", ops: true }, // prettier-ignore
    );
    ops = await opsPrincipal(t.store.db, user.id);
    ctx = { db: t.store.db, secretKey: "ops-providers-test-secret-key-0123456789", env: {}, actingAs: ops };
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("lists each provider's key, entries, outage and recent failures", async () => {
    const db = t.store.db;
    await addProvider(ctx, {
      document: { id: "pasted", kind: "openai-images", base_url: "https://api.pasted.example" },
      apiKey: PASTED,
    });
    await addProvider(ctx, {
      document: { id: "by-env", kind: "openai-images", base_url: "https://api.env.example", api_key_env: "ENV_KEY" },
    });
    await addEntry(ctx, { providerId: "pasted", document: entry("pasted/one") });
    await addEntry(ctx, { providerId: "pasted", document: entry("pasted/two") });
    await publishEntry(ctx, { id: "pasted/one" });

    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
    await db
      .insertInto("provider_outages")
      .values([
        { provider_id: "pasted", down_until: new Date(now.getTime() + 30_000).toISOString(), reason: "HTTP 502", updated_at: ago(1_000) }, // prettier-ignore
        { provider_id: "by-env", down_until: ago(1_000), reason: "lapsed", updated_at: ago(60_000) },
      ])
      .execute();
    const workspace = await createWorkspace({ db }, { name: "runs", creditMicros: 10_000_000 });
    const run = async (provider: string, completedAgo: number, message: string) => {
      const { generation } = await createGeneration(testCtx(t, workspace.id), {
        model: "atelier/gradient",
        input: { prompt: message },
      });
      await db
        .updateTable("generations")
        .set({ status: "failed", provider, completed_at: ago(completedAgo), error_message: message })
        .where("id", "=", generation.id)
        .execute();
      return generation.id;
    };
    const recent = [];
    for (let i = 0; i < 6; i++) recent.push(await run("pasted", (i + 1) * 60_000, `failure ${i}`));
    await run("pasted", 25 * 3_600_000, "a day and more ago");
    await run("by-env", 60_000, "another provider's");

    const listed = await opsProviders(ops, { now });
    expect(JSON.stringify(listed)).not.toContain(PASTED);
    const pasted = listed.find((p) => p.id === "pasted")!;
    expect(pasted).toMatchObject({
      credential: "secret set",
      source: "ops",
      entries: 2,
      published: 1,
      drafts: 1,
      outage: { reason: "HTTP 502" },
    });
    expect(pasted.failures.map((f) => f.id)).toEqual(recent.slice(0, 5));
    expect(pasted.failures[0]).toMatchObject({ model: "atelier/gradient", message: "failure 0" });
    const byEnv = listed.find((p) => p.id === "by-env")!;
    expect(byEnv).toMatchObject({ credential: "environment variable ENV_KEY", published: 0, drafts: 0, outage: null });
    expect(byEnv.failures.map((f) => f.message)).toEqual(["another provider's"]);
  });
});
