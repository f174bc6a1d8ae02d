// A routed run's attempts as the run page and the ops run page read them: only a run of the
// reader's workspace (another's answers the same "not found" as getGeneration), null for a run of
// one target or a column that cannot be read, and never in the public Generation.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../primitives/errors";
import { testCtx, testDialect, useTestStore } from "../../store/testing/test-store";
import type { RouteAttempt } from "../catalog/model-definition";
import { opsRun } from "../ops/ops";
import { opsPrincipal } from "../ops/ops-principal";
import { createUser } from "../workspaces/users";
import { createWorkspace } from "../workspaces/workspaces";
import { createGeneration, getGeneration } from "./generations";
import { parseRouteAttempts, runAttempts } from "./run-attempts";

const ATTEMPTS: RouteAttempt[] = [
  {
    provider: "route-fal",
    upstream_model: "fal-ai/flux/dev",
    outcome: "failed",
    reason: "The provider answered 503.",
    started_at: "2026-05-01T10:00:00.000Z",
    ms: 240,
  },
  {
    provider: "route-replicate",
    upstream_model: "black-forest-labs/flux-schnell",
    outcome: "succeeded",
    reason: null,
    started_at: "2026-05-01T10:00:00.240Z",
    ms: 1_200,
  },
];

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe(`run attempts (${testDialect()})`, () => {
  const store = useTestStore();

  async function routedRun(json: string | null) {
    const db = store.db;
    const owner = await createWorkspace({ db }, { name: "owner", creditMicros: 1_000_000 });
    const ctx = testCtx(store.t, owner.id);
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "x" } });
    // The engine writes the column when a routed run ends (lib/engine/finish.ts); a test writes it itself.
    await db.updateTable("generations").set({ route_attempts_json: json }).where("id", "=", generation.id).execute();
    return { ctx, id: generation.id };
  }

  it("gives the owner workspace the attempts, in order, and keeps them out of the Generation", async () => {
    const { ctx, id } = await routedRun(JSON.stringify(ATTEMPTS));
    expect(await runAttempts(ctx, { id })).toEqual(ATTEMPTS);
    const { generation } = await getGeneration(ctx, { id });
    expect(Object.keys(generation).filter((k) => /attempt/i.test(k))).toEqual([]);
    expect(JSON.stringify(generation)).not.toContain("route-fal");
  });

  it("answers another workspace's run, an unknown ID or another kind of ID as getGeneration does: not found", async () => {
    const { id } = await routedRun(JSON.stringify(ATTEMPTS));
    const other = await createWorkspace({ db: store.db }, { name: "other" });
    const b = testCtx(store.t, other.id);
    for (const asked of [id, "gen_doesnotexist", "file_abc", ""]) {
      const err = await rejection(runAttempts(b, { id: asked }));
      const same = await rejection(getGeneration(b, { id: asked }));
      expect([err.code, err.message]).toEqual(["resource_not_found", same.message]);
    }
  });

  it("needs generations:read", async () => {
    const { ctx, id } = await routedRun(JSON.stringify(ATTEMPTS));
    const err = await rejection(runAttempts({ ...ctx, scopes: ["generations:write"] }, { id }));
    expect(err.code).toBe("permission_denied");
  });

  it("is null for a run of one target and for a column it cannot read, never an error", async () => {
    const { ctx, id } = await routedRun(null);
    expect(await runAttempts(ctx, { id })).toBeNull();
    for (const json of ["{not json", '{"provider":"x"}', "[1]", '[{"provider":"x","outcome":"won"}]', "null"]) {
      const run = await routedRun(json);
      expect(await runAttempts(run.ctx, { id: run.id })).toBeNull();
    }
  });

  it("keeps only an attempt's own fields", () => {
    const stored = JSON.stringify([{ ...ATTEMPTS[1], secret: "x" }]);
    expect(parseRouteAttempts(stored)).toEqual([ATTEMPTS[1]]);
    expect(parseRouteAttempts("[]")).toEqual([]);
    expect(parseRouteAttempts(undefined)).toBeNull();
  });

  it("gives the ops run page the attempts of any workspace's run, null for one target", async () => {
    const db = store.db;
    const home = await createWorkspace({ db }, { name: "operators" });
    const operator = await createUser(
      { db },
      { email: "operator@example.com", password: "long enough", workspaceId: home.id, role: "owner", ops: true },
    );
    const ops = await opsPrincipal(db, operator.id);
    const routed = await routedRun(JSON.stringify(ATTEMPTS));
    expect((await opsRun(ops, routed.ctx.services, routed.id))?.attempts).toEqual(ATTEMPTS);
    const single = await routedRun(null);
    expect((await opsRun(ops, single.ctx.services, single.id))?.attempts).toBeNull();
    const broken = await routedRun("[{");
    expect((await opsRun(ops, broken.ctx.services, broken.id))?.attempts).toBeNull();
  });
});
