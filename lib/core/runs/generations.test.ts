import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finishRun } from "../../engine/finish";
import type { Db } from "../../store/database";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import type { Ctx, Source } from "../context";
import { grantCredit, readBalance, sumLedger, type Balance } from "../credits/credits";
import { ApiError } from "../../primitives/errors";
import type { StoredOutput } from "./generation-view";
import {
  cancelGeneration,
  createGeneration,
  getGeneration,
  listGenerations,
  parsePreferWait,
  type GenerationList,
} from "./generations";
import { quoteRun } from "./quotes";
import { createWorkspace } from "../workspaces/workspaces";
import { CLI_AUDIT } from "../audit/audit-writer";

const USD = 1_000_000;
/** atelier/gradient, standard resolution: $0.002 an image. */
const GRADIENT_MICROS = 2_000;

const gradient = (prompt = "ocean dusk", extra: Record<string, unknown> = {}) => ({
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

/** The balance row, checked against the ledger and granted = available + held + charged. */
async function consistentBalance(db: Db, workspaceId: string): Promise<Balance> {
  const balance = await readBalance(db, workspaceId);
  expect(await sumLedger(db, workspaceId)).toEqual(balance);
  expect(balance.grantedMicros).toBe(balance.availableMicros + balance.heldMicros + balance.chargedMicros);
  return balance;
}

async function counts(db: Db, workspaceId: string) {
  const count = async (table: "generations" | "ledger_entries" | "credit_holds" | "idempotency_keys" | "events") => {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return {
    generations: await count("generations"),
    ledger: await count("ledger_entries"),
    holds: await count("credit_holds"),
    keys: await count("idempotency_keys"),
    events: await count("events"),
  };
}

describe(`generations (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function workspaceCtx(creditMicros: number | undefined = USD, source: Source = "api"): Promise<Ctx> {
    const workspace = await createWorkspace({ db }, { name: "generations test", creditMicros });
    return { ...testCtx(t, workspace.id), source };
  }

  /** Puts a run in the state a worker holding it would leave it: running, leased to `owner`. */
  async function markRunning(id: string, owner = "worker-test"): Promise<void> {
    const now = new Date();
    await db
      .updateTable("generations")
      .set({
        status: "running",
        provider: "atelier",
        started_at: now.toISOString(),
        lease_owner: owner,
        lease_expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
        attempts: 1,
      })
      .where("id", "=", id)
      .execute();
  }

  async function succeed(ctx: Ctx, id: string, owner = "worker-test"): Promise<void> {
    await markRunning(id, owner);
    const blob = await ctx.services.blobs.put(Buffer.from("not really a png"));
    const outputs: StoredOutput[] = [
      { type: "image", blob, content_type: "image/png", bytes: 16, width: 8, height: 8 },
    ];
    expect(await finishRun(db, ctx.services, { id, owner, outcome: { status: "succeeded", outputs } })).toMatchObject({
      id,
      status: "succeeded",
    });
  }

  async function eventsOf(generationId: string) {
    return db.selectFrom("events").selectAll().where("generation_id", "=", generationId).execute();
  }

  describe("createGeneration", () => {
    it("holds the quoted price and inserts the run queued, with nothing started or charged", async () => {
      const ctx = await workspaceCtx(USD);
      const body = gradient("ocean dusk", { resolution: "hd", num_images: 2 });
      const { quote } = await quoteRun(ctx, body);
      expect(quote.hold_usd).toBe("0.008");

      const answer = await createGeneration(ctx, body);
      expect(answer.replayed).toBe(false);
      expect(answer.headers).toEqual({});
      const g = answer.generation;
      expect(g.id).toMatch(/^gen_[0-9A-Za-z]{24}$/);
      expect(g).toMatchObject({
        object: "generation",
        model: "atelier/gradient",
        modality: "image",
        status: "queued",
        provider: null,
        revision: "2026-11-01",
        input: quote.input,
        output: [],
        error: null,
        usage: { cost_usd: null },
        source: "api",
        batch_id: null,
        started_at: null,
        completed_at: null,
      });
      expect(g.input).toEqual({
        prompt: "ocean dusk",
        resolution: "hd",
        num_images: 2,
        aspect_ratio: "1:1",
        format: "png",
      });
      expect(new Date(g.created_at).toISOString()).toBe(g.created_at);

      const balance = await consistentBalance(db, ctx.workspaceId);
      expect(balance).toEqual({
        availableMicros: USD - 8_000,
        heldMicros: 8_000,
        grantedMicros: USD,
        chargedMicros: 0,
      });
      const row = await db.selectFrom("generations").selectAll().where("id", "=", g.id).executeTakeFirstOrThrow();
      expect(Number(row.price_micros)).toBe(8_000);
      expect(row.charged_micros).toBeNull();
      const hold = await db
        .selectFrom("credit_holds")
        .selectAll()
        .where("id", "=", row.hold_id!)
        .executeTakeFirstOrThrow();
      expect([hold.workspace_id, Number(hold.amount_micros), hold.status]).toEqual([ctx.workspaceId, 8_000, "held"]);

      // Reading it back gives the same generation.
      expect((await getGeneration(ctx, { id: g.id })).generation).toEqual(g);
    });

    it("records where the run was started from the context, never from the body", async () => {
      for (const source of ["studio", "mcp"] as const) {
        const ctx = await workspaceCtx(USD, source);
        const { generation } = await createGeneration(ctx, gradient());
        expect(generation.source).toBe(source);
        const row = await db
          .selectFrom("generations")
          .select("source")
          .where("id", "=", generation.id)
          .executeTakeFirstOrThrow();
        expect(row.source).toBe(source);
      }
      const ctx = await workspaceCtx();
      const err = await apiError(createGeneration(ctx, { ...gradient(), source: "studio" }), "invalid_parameter");
      expect(err.param).toBe("source");
    });

    it("resolves a preset without version to its latest and carries deprecation headers for a deprecated model", async () => {
      const ctx = await workspaceCtx();
      const poster = await createGeneration(ctx, {
        model: "atelier/gradient-poster",
        input: { prompt: "sea", title: "Hi" },
      });
      expect(poster.generation.model).toBe("atelier/gradient-poster@2");
      const classic = await createGeneration(ctx, { model: "atelier/gradient-classic", input: { prompt: "sea" } });
      expect(classic.headers.Deprecation).toMatch(/^@\d+$/);
      expect(classic.headers.Link).toContain("atelier/gradient");
      expect((await getGeneration(ctx, { id: classic.generation.id })).headers).toEqual(classic.headers);
    });

    it("answers 402 insufficient_credit and writes nothing when the balance does not cover the hold", async () => {
      const ctx = await workspaceCtx(GRADIENT_MICROS - 1);
      const before = await counts(db, ctx.workspaceId);
      expect(before).toEqual({ generations: 0, ledger: 1, holds: 0, keys: 0, events: 0 });
      const err = await apiError(
        createGeneration(ctx, gradient(), { idempotencyKey: "first-try" }),
        "insufficient_credit",
      );
      expect(err.status).toBe(402);
      expect(err.type).toBe("billing_error");
      expect(await counts(db, ctx.workspaceId)).toEqual(before);
      expect(await consistentBalance(db, ctx.workspaceId)).toEqual({
        availableMicros: GRADIENT_MICROS - 1,
        heldMicros: 0,
        grantedMicros: GRADIENT_MICROS - 1,
        chargedMicros: 0,
      });
      // The key was not used up: once credit is added, the same key starts the run.
      await grantCredit({ db }, { workspaceId: ctx.workspaceId, amountMicros: 1, audit: CLI_AUDIT });
      const retry = await createGeneration(ctx, gradient(), { idempotencyKey: "first-try" });
      expect(retry.replayed).toBe(false);
      expect(retry.generation.status).toBe("queued");
      expect((await consistentBalance(db, ctx.workspaceId)).availableMicros).toBe(0);
    });

    it("refuses invalid input, unknown and retired models, and missing scope, writing nothing", async () => {
      const ctx = await workspaceCtx();
      const before = await counts(db, ctx.workspaceId);
      expect((await apiError(createGeneration(ctx, gradient("x", { num_images: 9 })), "invalid_parameter")).param).toBe(
        "input.num_images",
      );
      expect(
        (await apiError(createGeneration(ctx, { model: "atelier/nope", input: {} }), "invalid_parameter")).param,
      ).toBe("model");
      expect((await apiError(createGeneration(ctx, []), "invalid_parameter")).param).toBeNull();
      await apiError(createGeneration(ctx, { model: "atelier/gradient-legacy", input: { prompt: "old" } }), "gone");
      const readOnly = { ...ctx, scopes: ["generations:read" as const] };
      await apiError(createGeneration(readOnly, gradient()), "permission_denied");
      expect(await counts(db, ctx.workspaceId)).toEqual(before);
    });
  });

  describe("idempotency", () => {
    it("the same key and body replay the same run, held once; key order in the body does not matter", async () => {
      const ctx = await workspaceCtx();
      const first = await createGeneration(
        ctx,
        { model: "atelier/gradient", input: { prompt: "a", seed: 7 } },
        { idempotencyKey: "key-1" },
      );
      const again = await createGeneration(
        ctx,
        { input: { seed: 7, prompt: "a" }, model: "atelier/gradient" },
        { idempotencyKey: "key-1" },
      );
      expect(first.replayed).toBe(false);
      expect(again.replayed).toBe(true);
      expect(again.generation).toEqual(first.generation);
      expect(await counts(db, ctx.workspaceId)).toMatchObject({ generations: 1, holds: 1, keys: 1 });
      expect((await consistentBalance(db, ctx.workspaceId)).heldMicros).toBe(GRADIENT_MICROS);
    });

    it("a replay answers the run as it is now", async () => {
      const ctx = await workspaceCtx();
      const first = await createGeneration(ctx, gradient(), { idempotencyKey: "key-now" });
      await cancelGeneration(ctx, { id: first.generation.id });
      const replay = await createGeneration(ctx, gradient(), { idempotencyKey: "key-now" });
      expect(replay.replayed).toBe(true);
      expect(replay.generation.id).toBe(first.generation.id);
      expect(replay.generation.status).toBe("canceled");
    });

    it("the same key with another body is a 409 conflict that starts nothing", async () => {
      const ctx = await workspaceCtx();
      await createGeneration(ctx, gradient("one"), { idempotencyKey: "key-2" });
      const before = await counts(db, ctx.workspaceId);
      const err = await apiError(createGeneration(ctx, gradient("two"), { idempotencyKey: "key-2" }), "conflict");
      expect(err.status).toBe(409);
      expect(await counts(db, ctx.workspaceId)).toEqual(before);
    });

    it("a key belongs to its workspace: another workspace may use it for its own run", async () => {
      const a = await workspaceCtx();
      const b = await workspaceCtx();
      const inA = await createGeneration(a, gradient(), { idempotencyKey: "shared-key" });
      const inB = await createGeneration(b, gradient(), { idempotencyKey: "shared-key" });
      expect(inB.replayed).toBe(false);
      expect(inB.generation.id).not.toBe(inA.generation.id);
    });

    it("refuses a key that is empty, too long or not printable ASCII, with param Idempotency-Key", async () => {
      const ctx = await workspaceCtx();
      for (const key of ["has space", "x".repeat(256), "", "tab\there", "café", "line\n"]) {
        const err = await apiError(createGeneration(ctx, gradient(), { idempotencyKey: key }), "invalid_parameter");
        expect(err.param).toBe("Idempotency-Key");
      }
      expect(await counts(db, ctx.workspaceId)).toMatchObject({ generations: 0, holds: 0, keys: 0 });
      for (const key of ["x".repeat(255), "!", "~key-1:2/3"]) {
        expect((await createGeneration(ctx, gradient(), { idempotencyKey: key })).replayed).toBe(false);
      }
    });

    it("20 concurrent creates with one key start one run with one hold", async () => {
      const ctx = await workspaceCtx();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => createGeneration(ctx, gradient("race"), { idempotencyKey: "race-key" })),
      );
      const ids = new Set(answers.map((a) => a.generation.id));
      expect(ids.size).toBe(1);
      expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
      expect(await counts(db, ctx.workspaceId)).toMatchObject({ generations: 1, holds: 1, keys: 1 });
      expect(await consistentBalance(db, ctx.workspaceId)).toMatchObject({
        heldMicros: GRADIENT_MICROS,
        availableMicros: USD - GRADIENT_MICROS,
      });
    });

    it("30 concurrent creates against a balance covering 10 start exactly 10", async () => {
      const ctx = await workspaceCtx(10 * GRADIENT_MICROS);
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) => createGeneration(ctx, gradient(`run ${i}`))),
      );
      const started = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(started).toHaveLength(10);
      expect(refused).toHaveLength(20);
      for (const r of refused) {
        expect(r.reason).toBeInstanceOf(ApiError);
        expect((r.reason as ApiError).code).toBe("insufficient_credit");
      }
      expect(await counts(db, ctx.workspaceId)).toMatchObject({ generations: 10, holds: 10 });
      expect(await consistentBalance(db, ctx.workspaceId)).toEqual({
        availableMicros: 0,
        heldMicros: 10 * GRADIENT_MICROS,
        grantedMicros: 10 * GRADIENT_MICROS,
        chargedMicros: 0,
      });
    });
  });

  describe("parsePreferWait", () => {
    it("reads wait=N, clipped to 60, and ignores what it does not understand", () => {
      const cases: Array<[string | undefined, number | null]> = [
        [undefined, null],
        ["", null],
        ["wait=5", 5],
        ["wait=0", 0],
        ["WAIT = 7", 7],
        ['wait="9"', 9],
        ["wait=60", 60],
        ["wait=61", 60],
        ["wait=999999", 60],
        ["wait=12345678901234567890", 60],
        ["respond-async, wait=10", 10],
        ["wait=12; foo=bar", 12],
        ["wait=abc", null],
        ["wait=-1", null],
        ["wait=1.5", null],
        ["return=minimal", null],
        ["nowait=5", null],
      ];
      for (const [header, expected] of cases) expect([header, parsePreferWait(header)]).toEqual([header, expected]);
    });
  });

  describe("getGeneration", () => {
    it("answers 404 resource_not_found for an unknown ID, another kind of ID, or another workspace's run", async () => {
      const a = await workspaceCtx();
      const b = await workspaceCtx();
      const { generation } = await createGeneration(a, gradient());
      for (const id of ["gen_000000000000000000000000", "bat_000000000000000000000000", "nonsense", generation.id]) {
        const err = await apiError(getGeneration(b, { id }), "resource_not_found");
        expect(err.status).toBe(404);
      }
      await apiError(getGeneration({ ...a, scopes: ["workspace:read"] }, { id: generation.id }), "permission_denied");
    });

    it("with a wait and no worker, answers after the wait with the run still queued", async () => {
      const ctx = await workspaceCtx();
      const { generation } = await createGeneration(ctx, gradient());
      const answer = await getGeneration(ctx, { id: generation.id, waitSeconds: 1 });
      expect(answer.generation.status).toBe("queued");
      expect(ctx.services.signals.waitedIds()).toEqual([]);
    });

    it("a waiting read wakes when the run ends (here: canceled by another request)", async () => {
      const ctx = await workspaceCtx();
      const { generation } = await createGeneration(ctx, gradient());
      // 60 s is longer than the test may take: only the finish signal ends the wait in time.
      const reading = getGeneration(ctx, { id: generation.id, waitSeconds: 60 });
      await cancelGeneration(ctx, { id: generation.id });
      const answer = await reading;
      expect(answer.generation.status).toBe("canceled");
      expect(ctx.services.signals.waitedIds()).toEqual([]);
    });

    it("a waiting read takes the row a finish in this process handed over, not a row of another workspace", async () => {
      const ctx = await workspaceCtx();
      const { generation } = await createGeneration(ctx, gradient());
      const row = await db
        .selectFrom("generations")
        .selectAll()
        .where("id", "=", generation.id)
        .executeTakeFirstOrThrow();
      const ended = {
        ...row,
        status: "failed" as const,
        error_message: "handed over",
        completed_at: new Date().toISOString(),
      };
      const waitersNow = async (n: number) => {
        while (ctx.services.signals.waitedIds().length < n) await new Promise((resolve) => setTimeout(resolve, 5));
      };
      // The store still has the run queued: only the handed row can say it failed.
      const reading = getGeneration(ctx, { id: generation.id, waitSeconds: 60 });
      await waitersNow(1);
      ctx.services.signals.runFinished(generation.id, ended);
      const answer = await reading;
      expect(answer.generation).toMatchObject({ status: "failed", error: { message: "handed over" } });
      // A row naming another workspace is not taken: the run is read (still queued).
      const again = getGeneration(ctx, { id: generation.id, waitSeconds: 60 });
      await waitersNow(1);
      ctx.services.signals.runFinished(generation.id, { ...ended, workspace_id: "ws_SomeoneElseSomeoneElse00" });
      expect((await again).generation.status).toBe("queued");
      await cancelGeneration(ctx, { id: generation.id });
    });

    it("a waiting read of a run already final answers at once", async () => {
      const ctx = await workspaceCtx();
      const { generation } = await createGeneration(ctx, gradient());
      await cancelGeneration(ctx, { id: generation.id });
      expect((await getGeneration(ctx, { id: generation.id, waitSeconds: 60 })).generation.status).toBe("canceled");
    });
  });

  describe("cancelGeneration", () => {
    it("cancels a queued run: hold released, completed_at set, one generation.canceled event", async () => {
      const ctx = await workspaceCtx();
      const { generation } = await createGeneration(ctx, gradient());
      const { generation: canceled } = await cancelGeneration(ctx, { id: generation.id });
      expect(canceled).toMatchObject({
        id: generation.id,
        status: "canceled",
        provider: null,
        started_at: null,
        usage: { cost_usd: null },
      });
      expect(canceled.completed_at).not.toBeNull();
      expect(Date.parse(canceled.completed_at!)).toBeGreaterThanOrEqual(Date.parse(canceled.created_at));
      expect(await consistentBalance(db, ctx.workspaceId)).toEqual({
        availableMicros: USD,
        heldMicros: 0,
        grantedMicros: USD,
        chargedMicros: 0,
      });
      const row = await db
        .selectFrom("generations")
        .selectAll()
        .where("id", "=", generation.id)
        .executeTakeFirstOrThrow();
      const hold = await db
        .selectFrom("credit_holds")
        .selectAll()
        .where("id", "=", row.hold_id!)
        .executeTakeFirstOrThrow();
      expect(hold.status).toBe("released");
      expect([row.lease_owner, row.lease_expires_at]).toEqual([null, null]);

      const events = await eventsOf(generation.id);
      expect(events.map((e) => e.type)).toEqual(["generation.canceled"]);
      expect(events[0]!.workspace_id).toBe(ctx.workspaceId);
      const payload = JSON.parse(events[0]!.payload_json) as { type: string; data: { id: string; status: string } };
      expect(payload).toMatchObject({ type: "generation.canceled", data: { id: generation.id, status: "canceled" } });
    });

    it("canceling again returns the run unchanged, with no second release or event", async () => {
      const ctx = await workspaceCtx();
      const { generation } = await createGeneration(ctx, gradient());
      const first = await cancelGeneration(ctx, { id: generation.id });
      const before = await counts(db, ctx.workspaceId);
      const second = await cancelGeneration(ctx, { id: generation.id });
      expect(second.generation).toEqual(first.generation);
      expect(await counts(db, ctx.workspaceId)).toEqual(before);
    });

    it("canceling a succeeded or failed run returns it as it is", async () => {
      const ctx = await workspaceCtx();
      const { generation: won } = await createGeneration(ctx, gradient());
      await succeed(ctx, won.id);
      const before = await counts(db, ctx.workspaceId);
      const balance = await consistentBalance(db, ctx.workspaceId);
      const answer = await cancelGeneration(ctx, { id: won.id });
      expect(answer.generation).toMatchObject({ status: "succeeded", usage: { cost_usd: "0.002" } });
      expect(answer.generation.output).toHaveLength(1);
      expect(await counts(db, ctx.workspaceId)).toEqual(before);
      expect(await consistentBalance(db, ctx.workspaceId)).toEqual(balance);
      expect(balance.chargedMicros).toBe(GRADIENT_MICROS);

      const { generation: lost } = await createGeneration(ctx, gradient());
      await markRunning(lost.id, "w");
      expect(
        await finishRun(db, ctx.services, {
          id: lost.id,
          owner: "w",
          outcome: { status: "failed", message: "model refused" },
        }),
      ).toMatchObject({ id: lost.id, status: "failed" });
      const failed = await cancelGeneration(ctx, { id: lost.id });
      expect(failed.generation).toMatchObject({ status: "failed", error: { message: "model refused" } });
      expect((await eventsOf(lost.id)).map((e) => e.type)).toEqual(["generation.failed"]);
    });

    it("a run past its cancel point (preview shown, or at a provider that bills) cannot be canceled: 409, nothing changes", async () => {
      const ctx = await workspaceCtx();
      for (const [running, reason] of [
        [false, "preview"],
        [true, "preview"],
        [true, "provider"],
      ] as const) {
        const { generation } = await createGeneration(ctx, {
          model: "atelier/gradient-poster",
          input: { prompt: "sea", title: "T" },
        });
        if (running) await markRunning(generation.id);
        await db
          .updateTable("generations")
          .set({ uncancelable_reason: reason })
          .where("id", "=", generation.id)
          .execute();
        const rowBefore = await db
          .selectFrom("generations")
          .selectAll()
          .where("id", "=", generation.id)
          .executeTakeFirstOrThrow();
        const before = await counts(db, ctx.workspaceId);
        const balance = await consistentBalance(db, ctx.workspaceId);
        const err = await apiError(cancelGeneration(ctx, { id: generation.id }), "conflict");
        expect(err.status).toBe(409);
        expect(err.message).toMatch(reason === "preview" ? /preview/ : /provider/);
        expect(
          await db.selectFrom("generations").selectAll().where("id", "=", generation.id).executeTakeFirstOrThrow(),
        ).toEqual(rowBefore);
        expect(await counts(db, ctx.workspaceId)).toEqual(before);
        expect(await consistentBalance(db, ctx.workspaceId)).toEqual(balance);
      }
    });

    it("cancels a running run; the worker's late result is thrown away and nothing is charged", async () => {
      const ctx = await workspaceCtx();
      const { generation } = await createGeneration(ctx, gradient());
      await markRunning(generation.id, "slow-worker");
      const { generation: canceled } = await cancelGeneration(ctx, { id: generation.id });
      expect(canceled.status).toBe("canceled");
      expect(canceled.provider).toBe("atelier");
      const blob = await ctx.services.blobs.put(Buffer.from("late"));
      const late = await finishRun(db, ctx.services, {
        id: generation.id,
        owner: "slow-worker",
        outcome: { status: "succeeded", outputs: [{ type: "image", blob, content_type: "image/png", bytes: 4 }] },
      });
      expect(late).toBeNull();
      const after = (await getGeneration(ctx, { id: generation.id })).generation;
      expect(after).toEqual(canceled);
      expect(after.output).toEqual([]);
      expect(await consistentBalance(db, ctx.workspaceId)).toEqual({
        availableMicros: USD,
        heldMicros: 0,
        grantedMicros: USD,
        chargedMicros: 0,
      });
      expect((await eventsOf(generation.id)).map((e) => e.type)).toEqual(["generation.canceled"]);
    });

    it("answers 404 for another workspace's run and 403 without the write scope", async () => {
      const a = await workspaceCtx();
      const b = await workspaceCtx();
      const { generation } = await createGeneration(a, gradient());
      await apiError(cancelGeneration(b, { id: generation.id }), "resource_not_found");
      await apiError(
        cancelGeneration({ ...a, scopes: ["generations:read"] }, { id: generation.id }),
        "permission_denied",
      );
      expect((await getGeneration(a, { id: generation.id })).generation.status).toBe("queued");
    });
  });

  describe("listGenerations", () => {
    /** Every page of a list, following next_cursor; checks the page shapes on the way. */
    async function allPages(ctx: Ctx, query: Record<string, string | undefined>): Promise<GenerationList[]> {
      const pages: GenerationList[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await listGenerations(ctx, { ...query, cursor });
        pages.push(page);
        expect(page.object).toBe("list");
        expect(page.url).toBe("/v1/generations");
        if (!page.has_more) {
          expect(page.next_cursor).toBeNull();
          return pages;
        }
        expect(page.next_cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
        cursor = page.next_cursor!;
        expect(pages.length).toBeLessThan(500);
      }
    }

    const idsOf = (pages: GenerationList[]) => pages.flatMap((p) => p.data.map((g) => g.id));

    let ctx: Ctx;
    /** Every run of the list workspace, newest first as the store orders them. */
    let expected: Array<{ id: string; model: string; source: string; status: string }>;

    beforeAll(async () => {
      ctx = await workspaceCtx(100 * USD);
      const make = (n: number, source: Source, body: unknown) =>
        Array.from({ length: n }, () => () => createGeneration({ ...ctx, source }, body));
      const jobs = [
        ...make(100, "api", gradient("lots")),
        ...make(10, "studio", gradient("studio")),
        ...make(5, "mcp", gradient("agent")),
        ...make(3, "api", { model: "atelier/gradient-poster@1", input: { prompt: "p", title: "one" } }),
        ...make(2, "api", { model: "atelier/gradient-poster", input: { prompt: "p", title: "two" } }),
      ];
      for (let i = 0; i < jobs.length; i += 20) await Promise.all(jobs.slice(i, i + 20).map((job) => job()));
      const some = await db
        .selectFrom("generations")
        .select("id")
        .where("workspace_id", "=", ctx.workspaceId)
        .orderBy("id")
        .limit(4)
        .execute();
      for (const { id } of some) await cancelGeneration(ctx, { id });
      // Another workspace's runs never show up.
      const other = await workspaceCtx();
      await createGeneration(other, gradient("elsewhere"));

      const rows = await db.selectFrom("generations").selectAll().where("workspace_id", "=", ctx.workspaceId).execute();
      expected = rows
        .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
        .map((r) => ({ id: r.id, model: r.model, source: r.source, status: r.status }));
    });

    it("pages through ~120 runs newest first, every run exactly once", async () => {
      expect(expected).toHaveLength(120);
      const pages = await allPages(ctx, { limit: "7" });
      expect(pages).toHaveLength(Math.ceil(120 / 7));
      for (const page of pages.slice(0, -1)) expect(page.data).toHaveLength(7);
      const ids = idsOf(pages);
      expect(new Set(ids).size).toBe(120);
      // Order compared within equal timestamps too: the store's collation decides ties on id.
      const data = pages.flatMap((p) => p.data);
      for (let i = 1; i < data.length; i++) expect(data[i - 1]!.created_at >= data[i]!.created_at).toBe(true);
      expect(new Set(ids)).toEqual(new Set(expected.map((e) => e.id)));
    });

    it("defaults to 50 a page and takes up to 100", async () => {
      const first = await listGenerations(ctx, {});
      expect(first.data).toHaveLength(50);
      expect(first.has_more).toBe(true);
      const big = await listGenerations(ctx, { limit: "100" });
      expect(big.data).toHaveLength(100);
      const rest = await listGenerations(ctx, { limit: "100", cursor: big.next_cursor! });
      expect(rest.data).toHaveLength(20);
      expect(rest.has_more).toBe(false);
      expect(rest.next_cursor).toBeNull();
      expect(idsOf([first])).toEqual(idsOf([big]).slice(0, 50));
    });

    it("lists newest first by created_at", async () => {
      const own = await workspaceCtx();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await createGeneration(own, gradient(`#${i}`))).generation.id);
      // Distinct, known creation times, so the order is not left to the clock.
      for (const [i, id] of ids.entries()) {
        await db
          .updateTable("generations")
          .set({ created_at: `2030-01-0${i + 1}T00:00:00.000Z` })
          .where("id", "=", id)
          .execute();
      }
      expect(idsOf([await listGenerations(own, {})])).toEqual([...ids].reverse());
    });

    it("filters by model: a preset without version matches every version", async () => {
      const count = async (model: string) => idsOf(await allPages(ctx, { model, limit: "100" })).length;
      expect(await count("atelier/gradient-poster")).toBe(5);
      expect(await count("atelier/gradient-poster@1")).toBe(3);
      expect(await count("atelier/gradient-poster@2")).toBe(2);
      expect(await count("atelier/gradient")).toBe(115);
      expect(await count("atelier/upscale")).toBe(0);
      const posters = await listGenerations(ctx, { model: "atelier/gradient-poster" });
      expect(new Set(posters.data.map((g) => g.model))).toEqual(
        new Set(["atelier/gradient-poster@1", "atelier/gradient-poster@2"]),
      );
    });

    it("filters by source and status (comma-separated)", async () => {
      const ids = async (query: Record<string, string>) =>
        new Set(idsOf(await allPages(ctx, { ...query, limit: "100" })));
      const where = (keep: (e: (typeof expected)[number]) => boolean) =>
        new Set(expected.filter(keep).map((e) => e.id));
      expect(await ids({ source: "studio" })).toEqual(where((e) => e.source === "studio"));
      expect((await ids({ source: "studio" })).size).toBe(10);
      expect(await ids({ source: "mcp,studio" })).toEqual(where((e) => e.source !== "api"));
      expect(await ids({ source: "api" })).toEqual(where((e) => e.source === "api"));
      expect(await ids({ status: "canceled" })).toEqual(where((e) => e.status === "canceled"));
      expect((await ids({ status: "canceled" })).size).toBe(4);
      expect((await ids({ status: "queued,canceled" })).size).toBe(120);
      expect((await ids({ status: "running,succeeded" })).size).toBe(0);
      expect(await ids({ source: "studio", status: "queued", model: "atelier/gradient" })).toEqual(
        where((e) => e.source === "studio" && e.status === "queued" && e.model === "atelier/gradient"),
      );
    });

    it("pages a filtered list with a small limit, every match once", async () => {
      const pages = await allPages(ctx, { source: "studio,mcp", limit: "4" });
      const ids = idsOf(pages);
      expect(ids).toHaveLength(15);
      expect(new Set(ids)).toEqual(new Set(expected.filter((e) => e.source !== "api").map((e) => e.id)));
    });

    it("keeps paging stable while new runs are added", async () => {
      const own = await workspaceCtx();
      const old: string[] = [];
      for (let i = 0; i < 12; i++) old.push((await createGeneration(own, gradient(`old ${i}`))).generation.id);
      for (const [i, id] of old.entries()) {
        await db
          .updateTable("generations")
          .set({ created_at: `2020-01-01T00:00:${String(i).padStart(2, "0")}.000Z` })
          .where("id", "=", id)
          .execute();
      }
      const first = await listGenerations(own, { limit: "5" });
      for (let i = 0; i < 3; i++) await createGeneration(own, gradient(`new ${i}`));
      let cursor = first.next_cursor!;
      const seen = idsOf([first]);
      for (;;) {
        const page = await listGenerations(own, { limit: "5", cursor });
        seen.push(...idsOf([page]));
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
      expect(seen).toEqual([...old].reverse());
    });

    it("refuses a cursor sent with other filters; the same filters in another order are the same", async () => {
      const page = await listGenerations(ctx, { source: "studio,mcp", limit: "2" });
      expect(
        (await listGenerations(ctx, { source: "mcp,studio", limit: "2", cursor: page.next_cursor! })).data,
      ).toHaveLength(2);
      for (const query of [
        { source: "mcp" },
        {},
        { source: "studio,mcp", status: "queued" },
        { source: "studio,mcp", model: "atelier/gradient" },
      ]) {
        const err = await apiError(
          listGenerations(ctx, { ...query, limit: "2", cursor: page.next_cursor! }),
          "invalid_parameter",
        );
        expect(err.param).toBe("cursor");
      }
      // A different page size is not a different filter.
      expect(
        (await listGenerations(ctx, { source: "studio,mcp", limit: "3", cursor: page.next_cursor! })).data,
      ).toHaveLength(3);
    });

    it("refuses a tampered or foreign cursor", async () => {
      const page = await listGenerations(ctx, { limit: "2" });
      const cursor = page.next_cursor!;
      const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === "A" ? "B" : "A") + s.slice(at + 1);
      for (const bad of [
        flip(cursor, 3),
        flip(cursor, cursor.length - 2),
        "",
        "x".repeat(513),
        "abc",
        `${cursor}.more`,
      ]) {
        expect((await apiError(listGenerations(ctx, { cursor: bad }), "invalid_parameter")).param).toBe("cursor");
      }
      // Another workspace's (or another secret's) cursor is refused too.
      const foreign = { ...ctx, services: { ...ctx.services, secretKey: "another-secret-another-secret-0123" } };
      expect((await apiError(listGenerations(foreign, { cursor }), "invalid_parameter")).param).toBe("cursor");
    });

    it("validates limit, model, source and status", async () => {
      for (const limit of ["0", "101", "1000", "-1", "1.5", "abc", "", " 5"]) {
        expect((await apiError(listGenerations(ctx, { limit }), "invalid_parameter")).param).toBe("limit");
      }
      expect((await listGenerations(ctx, { limit: "1" })).data).toHaveLength(1);
      for (const model of ["Atelier/Gradient", "gradient", "atelier/gradient@0", `a/${"b".repeat(99)}`]) {
        expect((await apiError(listGenerations(ctx, { model }), "invalid_parameter")).param).toBe("model");
      }
      for (const source of ["web", "", "api,"]) {
        expect((await apiError(listGenerations(ctx, { source }), "invalid_parameter")).param).toBe("source");
      }
      for (const status of ["done", "QUEUED", "queued;canceled"]) {
        expect((await apiError(listGenerations(ctx, { status }), "invalid_parameter")).param).toBe("status");
      }
      await apiError(listGenerations({ ...ctx, scopes: ["generations:write"] }, {}), "permission_denied");
    });
  });
});
