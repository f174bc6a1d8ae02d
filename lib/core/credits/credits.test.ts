import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../store/database";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import {
  applyHoldingWrites,
  grantCredit,
  moveHeldFromAvailable,
  readBalance,
  holdWrites,
  settleHold,
  sumLedger,
  type Balance,
} from "./credits";
import { ApiError } from "../../primitives/errors";
import { quoteRun } from "../runs/quotes";
import { createWorkspace } from "../workspaces/workspaces";
import { CLI_AUDIT } from "../audit/audit-writer";

const USD = 1_000_000;

/** A hold on its own: the writes a create makes, in its order, applied together, refused as a create is. */
async function holdCredit(db: Db, input: { workspaceId: string; amountMicros: number }): Promise<string> {
  const hold = holdWrites(db, input);
  const need = { workspaceId: input.workspaceId, neededMicros: input.amountMicros, needs: "This needs", advice: "" };
  await applyHoldingWrites(db, [...hold.writes, moveHeldFromAvailable(db, input)], need);
  return hold.holdId;
}

async function ledgerRows(db: Db, workspaceId: string) {
  return db.selectFrom("ledger_entries").selectAll().where("workspace_id", "=", workspaceId).orderBy("id").execute();
}

async function holdRows(db: Db, workspaceId: string) {
  return db.selectFrom("credit_holds").selectAll().where("workspace_id", "=", workspaceId).orderBy("id").execute();
}

/** The ledger's invariants (docs/architecture.md, "Rules that shape the code"), checked against the balance row and the ledger. */
async function expectConsistent(db: Db, workspaceId: string): Promise<Balance> {
  const balance = await readBalance(db, workspaceId);
  expect(await sumLedger(db, workspaceId)).toEqual(balance);
  expect(balance.grantedMicros).toBe(balance.availableMicros + balance.heldMicros + balance.chargedMicros);
  expect(balance.availableMicros).toBeGreaterThanOrEqual(0);
  expect(balance.heldMicros).toBeGreaterThanOrEqual(0);
  expect(balance.chargedMicros).toBeGreaterThanOrEqual(0);
  return balance;
}

async function expectApiError(promise: Promise<unknown>, code: string): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe(code);
  return err as ApiError;
}

describe(`credits (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function workspace(creditMicros?: number): Promise<string> {
    return (await createWorkspace({ db }, { name: "credits test", creditMicros })).id;
  }

  describe("grantCredit", () => {
    it("adds to available and granted, with one grant entry in the ledger", async () => {
      const ws = await workspace();
      const balance = await grantCredit(
        { db },
        { workspaceId: ws, amountMicros: 2_500_000, note: "top-up", audit: CLI_AUDIT },
      );
      expect(balance).toEqual({
        availableMicros: 2_500_000,
        heldMicros: 0,
        grantedMicros: 2_500_000,
        chargedMicros: 0,
      });
      await grantCredit({ db }, { workspaceId: ws, amountMicros: 1, audit: CLI_AUDIT });
      expect(await readBalance(db, ws)).toEqual({
        availableMicros: 2_500_001,
        heldMicros: 0,
        grantedMicros: 2_500_001,
        chargedMicros: 0,
      });
      const ledger = await ledgerRows(db, ws);
      expect(ledger.map((e) => [e.kind, Number(e.amount_micros)]).sort()).toEqual([
        ["grant", 1],
        ["grant", 2_500_000],
      ]);
      expect(ledger.find((e) => Number(e.amount_micros) === 2_500_000)?.note).toBe("top-up");
      await expectConsistent(db, ws);
    });

    it("refuses amounts that are not a positive whole number of micro-dollars", async () => {
      const ws = await workspace(USD);
      for (const amountMicros of [0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
        const err = await expectApiError(
          grantCredit({ db }, { workspaceId: ws, amountMicros, audit: CLI_AUDIT }),
          "invalid_parameter",
        );
        expect(err.param).toBe("usd");
      }
      expect((await readBalance(db, ws)).grantedMicros).toBe(USD);
      expect(await ledgerRows(db, ws)).toHaveLength(1);
    });

    it("refuses an unknown workspace", async () => {
      await expectApiError(
        grantCredit({ db }, { workspaceId: "ws_doesnotexist", amountMicros: USD, audit: CLI_AUDIT }),
        "resource_not_found",
      );
      expect(await ledgerRows(db, "ws_doesnotexist")).toEqual([]);
    });
  });

  describe("holding credit (holdWrites, then moveHeldFromAvailable)", () => {
    it("moves the amount from available to held and records the hold", async () => {
      const ws = await workspace(10 * USD);
      const holdId = await holdCredit(db, { workspaceId: ws, amountMicros: 3 * USD });
      expect(holdId).toMatch(/^hold_[0-9A-Za-z]{24}$/);
      expect(await readBalance(db, ws)).toEqual({
        availableMicros: 7 * USD,
        heldMicros: 3 * USD,
        grantedMicros: 10 * USD,
        chargedMicros: 0,
      });
      const [hold] = await holdRows(db, ws);
      expect(hold).toMatchObject({ id: holdId, status: "held", settled_at: null });
      expect(Number(hold!.amount_micros)).toBe(3 * USD);
      const ledger = await ledgerRows(db, ws);
      expect(ledger.filter((e) => e.kind === "hold").map((e) => [e.hold_id, Number(e.amount_micros)])).toEqual([
        [holdId, 3 * USD],
      ]);
      await expectConsistent(db, ws);
    });

    it("holds exactly the whole available balance", async () => {
      const ws = await workspace(USD);
      await holdCredit(db, { workspaceId: ws, amountMicros: USD });
      expect((await readBalance(db, ws)).availableMicros).toBe(0);
      await expectConsistent(db, ws);
    });

    it("insufficient credit throws insufficient_credit and writes nothing", async () => {
      const ws = await workspace(USD);
      await holdCredit(db, { workspaceId: ws, amountMicros: 400_000 });
      const before = await readBalance(db, ws);
      const ledgerBefore = await ledgerRows(db, ws);
      const holdsBefore = await holdRows(db, ws);

      const err = await expectApiError(
        holdCredit(db, { workspaceId: ws, amountMicros: 600_001 }),
        "insufficient_credit",
      );
      expect(err.status).toBe(402);
      expect(err.message).toContain("0.600001");
      expect(err.message).toContain("0.60 available");

      expect(await readBalance(db, ws)).toEqual(before);
      expect(await ledgerRows(db, ws)).toEqual(ledgerBefore);
      expect(await holdRows(db, ws)).toEqual(holdsBefore);
      await expectConsistent(db, ws);
    });

    it("on a workspace with nothing granted, throws insufficient_credit", async () => {
      const ws = await workspace();
      await expectApiError(holdCredit(db, { workspaceId: ws, amountMicros: 1 }), "insufficient_credit");
      expect(await ledgerRows(db, ws)).toEqual([]);
      expect(await holdRows(db, ws)).toEqual([]);
    });

    it("refuses a zero or negative amount", async () => {
      const ws = await workspace(USD);
      await expectApiError(holdCredit(db, { workspaceId: ws, amountMicros: 0 }), "invalid_parameter");
      await expectApiError(holdCredit(db, { workspaceId: ws, amountMicros: -5 }), "invalid_parameter");
      expect(await readBalance(db, ws)).toEqual({
        availableMicros: USD,
        heldMicros: 0,
        grantedMicros: USD,
        chargedMicros: 0,
      });
    });

    it("30 concurrent $1 holds against $10: exactly 10 succeed", async () => {
      const ws = await workspace(10 * USD);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 30 }, () => holdCredit(db, { workspaceId: ws, amountMicros: USD })),
      );
      const fulfilled = outcomes.filter((o) => o.status === "fulfilled");
      const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
      expect(fulfilled).toHaveLength(10);
      expect(rejected).toHaveLength(20);
      for (const r of rejected) {
        expect(r.reason).toBeInstanceOf(ApiError);
        expect((r.reason as ApiError).code).toBe("insufficient_credit");
      }
      expect(new Set(fulfilled.map((o) => (o as PromiseFulfilledResult<string>).value)).size).toBe(10);
      expect(await readBalance(db, ws)).toEqual({
        availableMicros: 0,
        heldMicros: 10 * USD,
        grantedMicros: 10 * USD,
        chargedMicros: 0,
      });
      expect(await holdRows(db, ws)).toHaveLength(10);
      expect((await ledgerRows(db, ws)).filter((e) => e.kind === "hold")).toHaveLength(10);
      await expectConsistent(db, ws);
    });
  });

  describe("settleHold", () => {
    it("charge moves held to charged, once", async () => {
      const ws = await workspace(5 * USD);
      const holdId = await holdCredit(db, { workspaceId: ws, amountMicros: 2 * USD });
      expect(await settleHold(db, { holdId, outcome: "charge" })).toBe(true);
      const charged = { availableMicros: 3 * USD, heldMicros: 0, grantedMicros: 5 * USD, chargedMicros: 2 * USD };
      expect(await readBalance(db, ws)).toEqual(charged);
      const [hold] = await holdRows(db, ws);
      expect(hold!.status).toBe("charged");
      expect(hold!.settled_at).not.toBeNull();
      const ledgerAfterFirst = await ledgerRows(db, ws);

      // Settling again, either way, moves nothing: never charged twice, never refunded after a charge.
      expect(await settleHold(db, { holdId, outcome: "charge" })).toBe(false);
      expect(await settleHold(db, { holdId, outcome: "release" })).toBe(false);
      expect(await readBalance(db, ws)).toEqual(charged);
      expect(await ledgerRows(db, ws)).toEqual(ledgerAfterFirst);
      expect((await holdRows(db, ws))[0]).toEqual(hold);
      await expectConsistent(db, ws);
    });

    it("release gives the amount back to available, once", async () => {
      const ws = await workspace(5 * USD);
      const holdId = await holdCredit(db, { workspaceId: ws, amountMicros: 2 * USD });
      expect(await settleHold(db, { holdId, outcome: "release" })).toBe(true);
      const released = { availableMicros: 5 * USD, heldMicros: 0, grantedMicros: 5 * USD, chargedMicros: 0 };
      expect(await readBalance(db, ws)).toEqual(released);
      expect((await holdRows(db, ws))[0]!.status).toBe("released");
      const ledgerAfterFirst = await ledgerRows(db, ws);

      expect(await settleHold(db, { holdId, outcome: "release" })).toBe(false);
      expect(await settleHold(db, { holdId, outcome: "charge" })).toBe(false);
      expect(await readBalance(db, ws)).toEqual(released);
      expect(await ledgerRows(db, ws)).toEqual(ledgerAfterFirst);
      await expectConsistent(db, ws);
    });

    it("concurrent settles of one hold: exactly one moves money", async () => {
      const ws = await workspace(5 * USD);
      const holdId = await holdCredit(db, { workspaceId: ws, amountMicros: USD });
      const results = await Promise.all([
        settleHold(db, { holdId, outcome: "charge" }),
        settleHold(db, { holdId, outcome: "charge" }),
        settleHold(db, { holdId, outcome: "release" }),
        settleHold(db, { holdId, outcome: "charge" }),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const balance = await expectConsistent(db, ws);
      expect(balance.heldMicros).toBe(0);
      expect(balance.availableMicros + balance.chargedMicros).toBe(5 * USD);
      expect((await ledgerRows(db, ws)).filter((e) => e.kind === "charge" || e.kind === "release")).toHaveLength(1);
    });

    it("an unknown hold returns false and moves nothing", async () => {
      expect(await settleHold(db, { holdId: "hold_doesnotexist", outcome: "charge" })).toBe(false);
    });
  });

  describe("the balance row's CHECK constraints", () => {
    it("refuse a negative available balance", async () => {
      const ws = await workspace(USD);
      await expect(
        db
          .updateTable("credit_balances")
          .set({ available_micros: -1, granted_micros: USD - 1 - USD })
          .where("workspace_id", "=", ws)
          .execute(),
      ).rejects.toThrow(/check|constraint/i);
      expect((await readBalance(db, ws)).availableMicros).toBe(USD);
    });

    it("refuse a negative held amount", async () => {
      const ws = await workspace(USD);
      await expect(
        db
          .updateTable("credit_balances")
          .set({ held_micros: -1, available_micros: USD + 1 })
          .where("workspace_id", "=", ws)
          .execute(),
      ).rejects.toThrow(/check|constraint/i);
    });

    it("refuse a row where granted ≠ available + held + charged", async () => {
      const ws = await workspace(USD);
      await expect(
        db
          .updateTable("credit_balances")
          .set({ available_micros: 2 * USD })
          .where("workspace_id", "=", ws)
          .execute(),
      ).rejects.toThrow(/check|constraint/i);
      expect(await readBalance(db, ws)).toEqual({
        availableMicros: USD,
        heldMicros: 0,
        grantedMicros: USD,
        chargedMicros: 0,
      });
    });
  });

  describe("property: any sequence of operations keeps the ledger and the balance row in step", () => {
    type Op =
      | { kind: "grant"; micros: number }
      | { kind: "hold"; micros: number }
      | { kind: "charge"; pick: number }
      | { kind: "release"; pick: number }
      | { kind: "quote"; body: unknown };

    const amount = fc.oneof(fc.integer({ min: 1, max: 3_000_000 }), fc.constantFrom(1, 999_999, USD, 2 * USD));
    const quoteBody = fc.oneof(
      fc.record({
        model: fc.constant("atelier/gradient"),
        input: fc.record(
          {
            prompt: fc.string({ minLength: 1, maxLength: 20 }),
            num_images: fc.integer({ min: 0, max: 6 }),
            resolution: fc.constantFrom("standard", "hd", "8k"),
          },
          { requiredKeys: ["prompt"] },
        ),
      }),
      fc.record({
        model: fc.constantFrom("atelier/gradient-poster", "atelier/gradient-poster@1", "atelier/gradient-classic"),
        input: fc.record({ prompt: fc.constant("dusk"), title: fc.string({ minLength: 0, maxLength: 5 }) }),
      }),
      fc.constantFrom<unknown>(
        { model: "atelier/gradient-legacy", input: { prompt: "old" } },
        { model: "atelier/nope", input: {} },
        { model: "atelier/gradient", input: { prompt: "x", colour: "red" } },
        "not an object",
        null,
      ),
    );
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant("grant" as const), micros: amount }),
      fc.record({ kind: fc.constant("hold" as const), micros: amount }),
      fc.record({ kind: fc.constant("hold" as const), micros: amount }),
      fc.record({ kind: fc.constant("charge" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("quote" as const), body: quoteBody }),
    );

    it("readBalance = sumLedger, granted = available + held + charged, available ≥ 0, quotes move nothing", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: 5 * USD }),
          fc.array(op, { minLength: 1, maxLength: 25 }),
          async (opening, ops) => {
            const ws = await workspace(opening || undefined);
            const ctx = testCtx(t, ws);
            // An independent model of what the balance must be.
            const model = { availableMicros: opening, heldMicros: 0, grantedMicros: opening, chargedMicros: 0 };
            const open: Array<{ id: string; micros: number }> = [];
            let ledgerCount = opening > 0 ? 1 : 0;

            for (const step of ops) {
              const before = await readBalance(db, ws);
              switch (step.kind) {
                case "grant":
                  await grantCredit({ db }, { workspaceId: ws, amountMicros: step.micros, audit: CLI_AUDIT });
                  model.availableMicros += step.micros;
                  model.grantedMicros += step.micros;
                  ledgerCount += 1;
                  break;
                case "hold":
                  if (step.micros <= model.availableMicros) {
                    open.push({
                      id: await holdCredit(db, { workspaceId: ws, amountMicros: step.micros }),
                      micros: step.micros,
                    });
                    model.availableMicros -= step.micros;
                    model.heldMicros += step.micros;
                    ledgerCount += 1;
                  } else {
                    await expectApiError(
                      holdCredit(db, { workspaceId: ws, amountMicros: step.micros }),
                      "insufficient_credit",
                    );
                  }
                  break;
                case "charge":
                case "release": {
                  if (open.length === 0) break;
                  const [hold] = open.splice(step.pick % open.length, 1);
                  expect(await settleHold(db, { holdId: hold!.id, outcome: step.kind })).toBe(true);
                  // The second settle of the same hold is always refused.
                  expect(await settleHold(db, { holdId: hold!.id, outcome: step.kind })).toBe(false);
                  model.heldMicros -= hold!.micros;
                  if (step.kind === "charge") model.chargedMicros += hold!.micros;
                  else model.availableMicros += hold!.micros;
                  ledgerCount += 1;
                  break;
                }
                case "quote": {
                  try {
                    const { quote } = await quoteRun(ctx, step.body);
                    expect(quote.object).toBe("quote");
                    expect(quote.cost_usd).toMatch(/^\d+\.\d{2,6}$/);
                  } catch (err) {
                    expect(err).toBeInstanceOf(ApiError);
                  }
                  expect(await readBalance(db, ws)).toEqual(before);
                  break;
                }
              }
              const balance = await expectConsistent(db, ws);
              expect(balance).toEqual(model);
              expect(await ledgerRows(db, ws)).toHaveLength(ledgerCount);
            }
            // Settling everything still open leaves nothing held.
            for (const hold of open) expect(await settleHold(db, { holdId: hold.id, outcome: "release" })).toBe(true);
            const final = await expectConsistent(db, ws);
            expect(final.heldMicros).toBe(0);
            expect(final.grantedMicros).toBe(final.availableMicros + final.chargedMicros);
          },
        ),
        { numRuns: 30 },
      );
    });
  });
});
