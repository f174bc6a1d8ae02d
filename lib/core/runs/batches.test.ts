import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../store/database";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import { createBatch, getBatch } from "./batches";
import type { Ctx } from "../context";
import { readBalance, sumLedger, type Balance } from "../credits/credits";
import { ApiError } from "../../primitives/errors";
import { cancelGeneration, createGeneration, getGeneration } from "./generations";
import { createWorkspace } from "../workspaces/workspaces";

const USD = 1_000_000;
const GRADIENT_MICROS = 2_000;

const item = (prompt: string, extra: Record<string, unknown> = {}) => ({
  model: "atelier/gradient",
  input: { prompt, ...extra },
});

async function apiError(promise: Promise<unknown>, code: string): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe(code);
  return err as ApiError;
}

async function consistentBalance(db: Db, workspaceId: string): Promise<Balance> {
  const balance = await readBalance(db, workspaceId);
  expect(await sumLedger(db, workspaceId)).toEqual(balance);
  expect(balance.grantedMicros).toBe(balance.availableMicros + balance.heldMicros + balance.chargedMicros);
  return balance;
}

async function counts(db: Db, workspaceId: string) {
  const count = async (table: "generations" | "batches" | "ledger_entries" | "credit_holds" | "idempotency_keys") => {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return {
    generations: await count("generations"),
    batches: await count("batches"),
    ledger: await count("ledger_entries"),
    holds: await count("credit_holds"),
    keys: await count("idempotency_keys"),
  };
}

describe(`batches (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function workspaceCtx(creditMicros: number = USD): Promise<Ctx> {
    return testCtx(t, (await createWorkspace({ db }, { name: "batches test", creditMicros })).id);
  }

  it("starts every run queued with the batch's ID, each with its own hold, in request order", async () => {
    const ctx = { ...(await workspaceCtx()), source: "studio" as const };
    const requests = [
      item("first"),
      item("second", { num_images: 3 }),
      { model: "atelier/gradient-poster", input: { prompt: "p", title: "third" } },
      item("fourth", { resolution: "hd" }),
    ];
    const { batch, replayed } = await createBatch(ctx, { requests });
    expect(replayed).toBe(false);
    expect(batch.id).toMatch(/^bat_[0-9A-Za-z]{24}$/);
    expect(batch.object).toBe("batch");
    expect(batch.data).toHaveLength(4);
    for (const g of batch.data) {
      expect(g).toMatchObject({
        status: "queued",
        batch_id: batch.id,
        source: "studio",
        provider: null,
        usage: { cost_usd: null },
      });
    }
    expect(batch.data.map((g) => g.input.prompt)).toEqual(["first", "second", "p", "fourth"]);
    expect(batch.data[2]!.model).toBe("atelier/gradient-poster@2");
    expect(new Set(batch.data.map((g) => g.id)).size).toBe(4);

    const prices = [GRADIENT_MICROS, 3 * GRADIENT_MICROS, 6_000, 4_000];
    const total = prices.reduce((a, b) => a + b, 0);
    expect(await consistentBalance(db, ctx.workspaceId)).toEqual({
      availableMicros: USD - total,
      heldMicros: total,
      grantedMicros: USD,
      chargedMicros: 0,
    });
    const rows = await db
      .selectFrom("generations")
      .selectAll()
      .where("batch_id", "=", batch.id)
      .orderBy("batch_index")
      .execute();
    expect(rows.map((r) => r.id)).toEqual(batch.data.map((g) => g.id));
    expect(rows.map((r) => r.batch_index)).toEqual([0, 1, 2, 3]);
    const holds = await db.selectFrom("credit_holds").selectAll().where("workspace_id", "=", ctx.workspaceId).execute();
    expect(new Set(rows.map((r) => r.hold_id)).size).toBe(4);
    for (const [i, row] of rows.entries()) {
      const hold = holds.find((h) => h.id === row.hold_id);
      expect([Number(hold?.amount_micros), hold?.status]).toEqual([prices[i], "held"]);
    }
    const batchRow = await db.selectFrom("batches").selectAll().where("id", "=", batch.id).executeTakeFirstOrThrow();
    expect([batchRow.workspace_id, batchRow.source, batchRow.created_at]).toEqual([
      ctx.workspaceId,
      "studio",
      batch.created_at,
    ]);

    // Read back: the same runs in request order; each also readable on its own.
    const read = await getBatch(ctx, { id: batch.id });
    expect(read).toEqual(batch);
    for (const g of batch.data) expect((await getGeneration(ctx, { id: g.id })).generation).toEqual(g);
  });

  it("each run settles on its own: canceling one releases only its hold", async () => {
    const ctx = await workspaceCtx();
    const { batch } = await createBatch(ctx, { requests: [item("a"), item("b", { num_images: 2 })] });
    await cancelGeneration(ctx, { id: batch.data[1]!.id });
    expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({
      heldMicros: GRADIENT_MICROS,
      availableMicros: USD - GRADIENT_MICROS,
    });
    const read = await getBatch(ctx, { id: batch.id });
    expect(read.data.map((g) => g.status)).toEqual(["queued", "canceled"]);
  });

  it("an invalid item starts nothing and names the item in param", async () => {
    const ctx = await workspaceCtx();
    const before = await counts(db, ctx.workspaceId);
    const err = await apiError(
      createBatch(ctx, { requests: [item("ok"), item("bad", { num_images: 9 })] }, { idempotencyKey: "b-1" }),
      "invalid_parameter",
    );
    expect(err.param).toBe("requests[1].input.num_images");
    expect(
      (await apiError(createBatch(ctx, { requests: [item("ok"), { model: "atelier/nope" }] }), "invalid_parameter"))
        .param,
    ).toBe("requests[1].model");
    expect(
      (await apiError(createBatch(ctx, { requests: [item("ok"), { ...item("x"), extra: 1 }] }), "invalid_parameter"))
        .param,
    ).toBe("requests[1].extra");
    expect((await apiError(createBatch(ctx, { requests: [item("ok"), "nope"] }), "invalid_parameter")).param).toBe(
      "requests[1]",
    );
    expect(await counts(db, ctx.workspaceId)).toEqual(before);
    expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({ availableMicros: USD, heldMicros: 0 });
  });

  it("insufficient credit for the total starts nothing, even when the first items would fit", async () => {
    const ctx = await workspaceCtx(3 * GRADIENT_MICROS);
    const before = await counts(db, ctx.workspaceId);
    const err = await apiError(
      createBatch(ctx, { requests: [item("a"), item("b"), item("c"), item("d")] }, { idempotencyKey: "b-2" }),
      "insufficient_credit",
    );
    expect(err.status).toBe(402);
    expect(await counts(db, ctx.workspaceId)).toEqual(before);
    expect(before).toMatchObject({ generations: 0, batches: 0, holds: 0, keys: 0 });
    // Exactly the balance is enough.
    const { batch } = await createBatch(
      ctx,
      { requests: [item("a"), item("b"), item("c")] },
      { idempotencyKey: "b-2" },
    );
    expect(batch.data).toHaveLength(3);
    expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({
      availableMicros: 0,
      heldMicros: 3 * GRADIENT_MICROS,
    });
  });

  it("takes 1 to 50 requests and no other field", async () => {
    const ctx = await workspaceCtx(10 * USD);
    for (const body of [
      { requests: [] },
      { requests: Array.from({ length: 51 }, () => item("x")) },
      { requests: "x" },
      {},
    ]) {
      expect((await apiError(createBatch(ctx, body), "invalid_parameter")).param).toBe("requests");
    }
    expect(
      (await apiError(createBatch(ctx, { requests: [item("x")], webhook: "https://x.example" }), "invalid_parameter"))
        .param,
    ).toBe("webhook");
    expect((await apiError(createBatch(ctx, [item("x")]), "invalid_parameter")).param).toBeNull();
    expect((await counts(db, ctx.workspaceId)).generations).toBe(0);
    const { batch } = await createBatch(ctx, { requests: Array.from({ length: 50 }, (_, i) => item(`n${i}`)) });
    expect(batch.data.map((g) => g.input.prompt)).toEqual(Array.from({ length: 50 }, (_, i) => `n${i}`));
    expect((await getBatch(ctx, { id: batch.id })).data.map((g) => g.id)).toEqual(batch.data.map((g) => g.id));
  });

  it("replays with the same key and body: same batch, same runs, nothing held twice", async () => {
    const ctx = await workspaceCtx();
    const body = { requests: [item("a"), item("b")] };
    const first = await createBatch(ctx, body, { idempotencyKey: "batch-key" });
    await cancelGeneration(ctx, { id: first.batch.data[0]!.id });
    const again = await createBatch(
      ctx,
      { requests: [{ input: { prompt: "a" }, model: "atelier/gradient" }, item("b")] },
      { idempotencyKey: "batch-key" },
    );
    expect(again.replayed).toBe(true);
    expect(again.batch.id).toBe(first.batch.id);
    expect(again.batch.data.map((g) => g.id)).toEqual(first.batch.data.map((g) => g.id));
    // As it is now.
    expect(again.batch.data.map((g) => g.status)).toEqual(["canceled", "queued"]);
    expect(await counts(db, ctx.workspaceId)).toMatchObject({ generations: 2, batches: 1, holds: 2, keys: 1 });

    expect(
      (await apiError(createBatch(ctx, { requests: [item("other")] }, { idempotencyKey: "batch-key" }), "conflict"))
        .status,
    ).toBe(409);
    // A key is one request: the same key on POST /v1/generations is another request.
    await apiError(createGeneration(ctx, body, { idempotencyKey: "batch-key" }), "conflict");
    expect((await apiError(createBatch(ctx, body, { idempotencyKey: "with space" }), "invalid_parameter")).param).toBe(
      "Idempotency-Key",
    );
    expect(await counts(db, ctx.workspaceId)).toMatchObject({ generations: 2, batches: 1, holds: 2, keys: 1 });
  });

  it("concurrent batches with one key start one batch", async () => {
    const ctx = await workspaceCtx();
    const body = { requests: [item("a"), item("b"), item("c")] };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => createBatch(ctx, body, { idempotencyKey: "same" })),
    );
    expect(new Set(answers.map((a) => a.batch.id)).size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    for (const a of answers) expect(a.batch.data.map((g) => g.id)).toEqual(answers[0]!.batch.data.map((g) => g.id));
    expect(await counts(db, ctx.workspaceId)).toMatchObject({ generations: 3, batches: 1, holds: 3, keys: 1 });
  });

  it("getBatch answers 404 for an unknown or another workspace's batch, and needs the read scope", async () => {
    const a = await workspaceCtx();
    const b = await workspaceCtx();
    const { batch } = await createBatch(a, { requests: [item("x")] });
    for (const id of [batch.id, "bat_000000000000000000000000", "gen_000000000000000000000000"]) {
      expect((await apiError(getBatch(b, { id }), "resource_not_found")).status).toBe(404);
    }
    await apiError(getBatch({ ...a, scopes: ["generations:write"] }, { id: batch.id }), "permission_denied");
    await apiError(createBatch({ ...a, scopes: ["generations:read"] }, { requests: [item("x")] }), "permission_denied");
  });
});
