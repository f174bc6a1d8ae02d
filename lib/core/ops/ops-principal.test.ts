import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import type { Services, SystemCtx } from "../context";
import { ApiError } from "../../primitives/errors";
import { createGeneration } from "../runs/generations";
import {
  opsFailureReasons,
  opsGrantCredit,
  opsModels,
  opsOverview,
  opsPauseModel,
  opsResumeModel,
  opsRun,
  opsWorkspaces,
} from "./ops";
import { opsPrincipal, type OpsCtx } from "./ops-principal";
import { listShareLinksForOps } from "../shares/share-links";
import { createUser } from "../workspaces/users";
import { createWorkspace } from "../workspaces/workspaces";

async function refusal(work: Promise<unknown>): Promise<ApiError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/**
 * Never called: what must not compile. Each line is a way a page could reach the cross-workspace
 * readers without the principal; `tsc --noEmit` fails on an expect-error line that compiles.
 */
export function withoutThePrincipal(system: SystemCtx, studio: ReturnType<typeof testCtx>, services: Services): void {
  // @ts-expect-error a bare { db } is no principal
  void opsRun(system, services, "gen_x");
  // @ts-expect-error nor is a signed-in user's Ctx, though it has a db
  void opsRun(studio, services, "gen_x");
  // @ts-expect-error a studio Ctx is no principal
  void opsOverview(studio);
  // @ts-expect-error a bare { db } is no principal
  void opsFailureReasons(system);
  // @ts-expect-error a studio Ctx is no principal
  void opsModels(studio);
  // @ts-expect-error a studio Ctx is no principal
  void opsWorkspaces(studio);
  // @ts-expect-error a studio Ctx is no principal
  void opsGrantCredit(studio, { workspaceId: "ws_x", amountMicros: 1 });
  // @ts-expect-error a bare { db } is no principal
  void opsPauseModel(system, { modelId: "atelier/gradient", until: null, reason: "x" });
  // @ts-expect-error a studio Ctx is no principal
  void opsResumeModel(studio, { modelId: "atelier/gradient" });
  // @ts-expect-error a studio Ctx is no principal
  void listShareLinksForOps(studio);
  // @ts-expect-error an object shaped like it, without the brand only opsPrincipal() sets
  void opsOverview({ db: system.db, operator: "me@example.com" });
}

describe(`the ops principal (${testDialect()})`, () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("is made for an ops user only, from the role the store has now", async () => {
    const db = t.store.db;
    const ws = await createWorkspace({ db }, { name: "principal" });
    const operator = await createUser(
      { db },
      { email: "ops-principal@example.com", password: "long enough", workspaceId: ws.id, role: "owner", ops: true },
    );
    const creator = await createUser(
      { db },
      { email: "creator-principal@example.com", password: "long enough", workspaceId: ws.id, role: "creator" },
    );

    const ops = await opsPrincipal(db, operator.id);
    expect(ops.operator).toBe("ops-principal@example.com");
    expect((await opsOverview(ops)).runs).toEqual([]);

    const refused = await refusal(opsPrincipal(db, creator.id));
    expect(refused).toMatchObject({ code: "resource_not_found", status: 404 });
    // Not a word of who exists or what role they have.
    expect(refused.message).not.toContain(creator.id);
    for (const id of [
      "usr_doesnotexist",
      "",
      "constructor",
      "__proto__",
      "usr_\u0000x",
      "usr_" + "x".repeat(5000),
      ws.id,
    ]) {
      expect((await refusal(opsPrincipal(db, id))).code).toBe("resource_not_found");
    }

    // Demoted after sign-in: refused at once, whatever the session still says.
    await db.updateTable("users").set({ is_ops: 0 }).where("id", "=", operator.id).execute();
    expect((await refusal(opsPrincipal(db, operator.id))).code).toBe("resource_not_found");
  });

  it("carries the operator into credit notes and pauses; an unknown workspace is not found", async () => {
    const db = t.store.db;
    const home = await createWorkspace({ db }, { name: "operators-home" });
    const other = await createWorkspace({ db }, { name: "customer" });
    const operator = await createUser(
      { db },
      { email: "ops-verbs@example.com", password: "long enough", workspaceId: home.id, role: "owner", ops: true },
    );
    const ops: OpsCtx = await opsPrincipal(db, operator.id);

    const granted = await opsGrantCredit(ops, { workspaceId: other.id, amountMicros: 2_500_000 });
    expect(granted.workspace.name).toBe("customer");
    expect(granted.balance.availableMicros).toBe(2_500_000);
    const note = await db
      .selectFrom("ledger_entries")
      .select("note")
      .where("workspace_id", "=", other.id)
      .executeTakeFirstOrThrow();
    expect(note.note).toBe("added in the studio by ops-verbs@example.com");
    expect((await opsWorkspaces(ops)).find((w) => w.id === other.id)?.balance.availableMicros).toBe(2_500_000);
    for (const workspaceId of ["ws_doesnotexist", "constructor", "__proto__", "ws_\u0000", "x".repeat(10_000)]) {
      const err = await refusal(opsGrantCredit(ops, { workspaceId, amountMicros: 1_000_000 }));
      expect(err).toMatchObject({ code: "resource_not_found", param: "workspace" });
      expect(err.message.length).toBeLessThan(200);
    }

    await opsPauseModel(ops, { modelId: "atelier/gradient", until: null, reason: "checking the principal" });
    expect((await opsModels(ops)).find((m) => m.id === "atelier/gradient")?.pause).toMatchObject({
      by: "ops-verbs@example.com",
      reason: "checking the principal",
    });
    expect(await opsResumeModel(ops, { modelId: "atelier/gradient" })).toEqual({
      model: "atelier/gradient",
      resumed: true,
    });
  });

  it("reads a run of any workspace only through the principal", async () => {
    const db = t.store.db;
    const home = await createWorkspace({ db }, { name: "ops-reader-home" });
    const customer = await createWorkspace({ db }, { name: "ops-reader-customer", creditMicros: 1_000_000 });
    const operator = await createUser(
      { db },
      { email: "ops-reader@example.com", password: "long enough", workspaceId: home.id, role: "owner", ops: true },
    );
    const ctx = testCtx(t, customer.id);
    const { generation } = await createGeneration(ctx, {
      model: "atelier/gradient",
      input: { prompt: "a principal's read" },
    });
    const read = await opsRun(await opsPrincipal(db, operator.id), ctx.services, generation.id);
    expect(read?.workspace).toEqual({ id: customer.id, name: "ops-reader-customer" });
  });
});
