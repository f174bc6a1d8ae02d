import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../store/database";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import { SCOPES } from "../context";
import { readBalance, sumLedger } from "../credits/credits";
import { ApiError } from "../../primitives/errors";
import { countWorkspaces, createWorkspace, findWorkspace, getWorkspace, listWorkspaces } from "./workspaces";

describe(`workspaces (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("creates a workspace with an empty balance when no opening credit is given", async () => {
    const workspace = await createWorkspace({ db }, { name: "  studio one  " });
    expect(workspace).toMatchObject({ object: "workspace", name: "studio one" });
    expect(workspace.id).toMatch(/^ws_[0-9A-Za-z]{24}$/);
    expect(Number.isNaN(Date.parse(workspace.created_at))).toBe(false);
    expect(await readBalance(db, workspace.id)).toEqual({
      availableMicros: 0,
      heldMicros: 0,
      grantedMicros: 0,
      chargedMicros: 0,
    });
    expect(
      await db.selectFrom("ledger_entries").selectAll().where("workspace_id", "=", workspace.id).execute(),
    ).toEqual([]);
  });

  it("creates a workspace with its opening credit as one grant in the ledger", async () => {
    const workspace = await createWorkspace({ db }, { name: "funded", creditMicros: 10_000_000 });
    const balance = await readBalance(db, workspace.id);
    expect(balance).toEqual({
      availableMicros: 10_000_000,
      heldMicros: 0,
      grantedMicros: 10_000_000,
      chargedMicros: 0,
    });
    expect(await sumLedger(db, workspace.id)).toEqual(balance);
    const ledger = await db.selectFrom("ledger_entries").selectAll().where("workspace_id", "=", workspace.id).execute();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ kind: "grant", note: "opening credit", hold_id: null });
    expect(Number(ledger[0]!.amount_micros)).toBe(10_000_000);
  });

  it("creates nothing when the opening credit is invalid", async () => {
    const before = await countWorkspaces({ db });
    const err = await createWorkspace({ db }, { name: "bad credit", creditMicros: -5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("invalid_parameter");
    expect(await countWorkspaces({ db })).toBe(before);
    expect((await listWorkspaces({ db })).map((w) => w.name)).not.toContain("bad credit");
  });

  it("refuses an empty or over-long name", async () => {
    for (const name of ["", "   ", "x".repeat(101)]) {
      const err = await createWorkspace({ db }, { name }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("invalid_parameter");
      expect((err as ApiError).param).toBe("name");
    }
    expect((await createWorkspace({ db }, { name: "x".repeat(100) })).name).toHaveLength(100);
  });

  it("lists workspaces oldest first, and finds one by ID", async () => {
    const a = await createWorkspace({ db }, { name: "list a" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const b = await createWorkspace({ db }, { name: "list b" });
    const list = await listWorkspaces({ db });
    const ids = list.map((w) => w.id);
    expect(ids).toContain(a.id);
    expect(ids).toContain(b.id);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
    expect(list.find((w) => w.id === b.id)).toEqual(b);
    expect(await countWorkspaces({ db })).toBe(list.length);
    expect(await findWorkspace({ db }, a.id)).toEqual(a);
    expect(await findWorkspace({ db }, "ws_doesnotexist")).toBeNull();
  });

  describe("getWorkspace", () => {
    it("returns the caller's own workspace", async () => {
      const workspace = await createWorkspace({ db }, { name: "mine" });
      await createWorkspace({ db }, { name: "not mine" });
      expect(await getWorkspace(testCtx(t, workspace.id))).toEqual(workspace);
    });

    it("needs the workspace:read scope, and says so", async () => {
      const workspace = await createWorkspace({ db }, { name: "scoped" });
      const ctx = testCtx(t, workspace.id, { scopes: SCOPES.filter((s) => s !== "workspace:read") });
      const err = await getWorkspace(ctx).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("permission_denied");
      expect((err as ApiError).status).toBe(403);
      expect((err as ApiError).message).toContain('"workspace:read"');
      expect(await getWorkspace(testCtx(t, workspace.id, { scopes: ["workspace:read"] }))).toEqual(workspace);
    });

    it("answers resource_not_found when the workspace is gone", async () => {
      const err = await getWorkspace(testCtx(t, "ws_doesnotexist")).catch((e: unknown) => e);
      expect((err as ApiError).code).toBe("resource_not_found");
    });
  });
});
