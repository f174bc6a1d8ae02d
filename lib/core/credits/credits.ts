// The credit ledger: an append-only list of grants, holds, releases and charges, plus one
// balance row per workspace changed in the same transaction. The balance row's CHECKs keep
// available ≥ 0 and granted = available + held + charged at all times.
import { sql, type Compilable, type CompiledQuery, type Expression } from "kysely";
import type { Db } from "../../store/database";
import { withTransaction, writeList, type ListRead } from "../../store/writes";
import { nowIso, requireScope, type Ctx, type SystemCtx } from "../context";
import { ApiError } from "../../primitives/errors";
import { newId } from "../../primitives/ids";
import { LIMITS } from "../../primitives/limits";
import { formatUsd, type Micros } from "../../primitives/money";
import type { Credits } from "./credits-shape";
import { insertRow, reusedQuery } from "../../store/reused-sql";
import { recordAudit, type AuditBy } from "../audit/audit-writer";
import { isPastBudget } from "../budgets/budget-spend";
import { budgetRefusal } from "../budgets/budget-refusal";

export type { Credits };

export interface Balance {
  availableMicros: Micros;
  heldMicros: Micros;
  grantedMicros: Micros;
  chargedMicros: Micros;
}

export async function readBalance(db: Db, workspaceId: string): Promise<Balance> {
  const row = await db
    .selectFrom("credit_balances")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  if (!row) throw new ApiError("resource_not_found", `No workspace ${workspaceId}.`, { param: "workspace" });
  return {
    availableMicros: Number(row.available_micros),
    heldMicros: Number(row.held_micros),
    grantedMicros: Number(row.granted_micros),
    chargedMicros: Number(row.charged_micros),
  };
}

export function presentCredits(balance: Balance): Credits {
  return {
    object: "credits",
    available_usd: formatUsd(balance.availableMicros),
    held_usd: formatUsd(balance.heldMicros),
  };
}

/** GET /v1/credits */
export async function getCredits(ctx: Ctx): Promise<Credits> {
  requireScope(ctx, "generations:read");
  return presentCredits(await readBalance(ctx.db, ctx.workspaceId));
}

type LedgerEntry = {
  workspaceId: string;
  kind: "grant" | "hold" | "release" | "charge";
  amountMicros: Micros;
  holdId?: string;
  note?: string;
  at?: string;
};

function ledgerEntryInsert(db: Db, entry: LedgerEntry): Compilable {
  return insertRow(db, "ledger_entries", {
    id: newId("ledgerEntry"),
    workspace_id: entry.workspaceId,
    kind: entry.kind,
    amount_micros: entry.amountMicros,
    hold_id: entry.holdId ?? null,
    note: entry.note ?? null,
    created_at: entry.at ?? nowIso(),
  });
}

async function appendLedger(db: Db, entry: LedgerEntry): Promise<void> {
  await db.executeQuery(ledgerEntryInsert(db, entry).compile());
}

function assertPositiveAmount(amountMicros: Micros, param: string): void {
  if (!Number.isSafeInteger(amountMicros) || amountMicros <= 0) {
    throw new ApiError("invalid_parameter", "The amount must be more than $0.00 and at most $999,999,999.", { param });
  }
}

const BALANCE_BOUND = "credit_balances_within_bound";

/** True when err is the balance bound (migration 017) refusing a write: a CHECK on PostgreSQL, a trigger on SQLite. */
function isPastBalanceBound(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  if (e?.code === "23514") return e.constraint === BALANCE_BOUND;
  return (
    typeof e?.code === "string" &&
    e.code.startsWith("SQLITE_CONSTRAINT") &&
    typeof e.message === "string" &&
    e.message.includes(BALANCE_BOUND)
  );
}

function pastBoundError(balance: Balance | null, amountMicros: Micros): ApiError {
  const room = balance ? Math.max(0, LIMITS.maxBalanceMicros - balance.availableMicros - balance.heldMicros) : null;
  return new ApiError(
    "invalid_parameter",
    `A workspace holds at most $${formatUsd(LIMITS.maxBalanceMicros)} of credit (available plus held); adding $${formatUsd(amountMicros)} would pass it` +
      (room === null ? "." : `: at most $${formatUsd(room)} more can be added now.`),
    { param: "usd" },
  );
}

/**
 * Adds credit to a workspace (admin CLI, ops). The bound on the balance is part of the update
 * itself (no row changes when it would pass), so two grants at once cannot both squeeze under it;
 * the store's own CHECK (migration 017) holds it for every other writer. `audit` names who grants
 * it (null: the first start's demo credit, not audited).
 */
export async function grantCredit(
  ctx: SystemCtx,
  input: { workspaceId: string; amountMicros: Micros; note?: string; audit: AuditBy | null },
): Promise<Balance> {
  assertPositiveAmount(input.amountMicros, "usd");
  if (input.amountMicros > LIMITS.maxBalanceMicros) throw pastBoundError(null, input.amountMicros);
  try {
    return await withTransaction(ctx.db, async (trx) => {
      const result = await trx
        .updateTable("credit_balances")
        .set({
          available_micros: sql`available_micros + ${input.amountMicros}`,
          granted_micros: sql`granted_micros + ${input.amountMicros}`,
        })
        .where("workspace_id", "=", input.workspaceId)
        .where(sql<number>`available_micros + held_micros`, "<=", LIMITS.maxBalanceMicros - input.amountMicros)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) {
        // Nothing written: say why (no such workspace, or the bound), from the row as it is now.
        const balance = await trx
          .selectFrom("credit_balances")
          .select("workspace_id")
          .where("workspace_id", "=", input.workspaceId)
          .executeTakeFirst();
        if (!balance)
          throw new ApiError("resource_not_found", `No workspace ${input.workspaceId}.`, { param: "workspace" });
        throw pastBoundError(await readBalance(trx, input.workspaceId), input.amountMicros);
      }
      await appendLedger(trx, {
        workspaceId: input.workspaceId,
        kind: "grant",
        amountMicros: input.amountMicros,
        note: input.note,
      });
      if (input.audit)
        await recordAudit(trx, input.audit, {
          workspaceId: input.workspaceId,
          action: "credit.granted",
          target: { type: "workspace", id: input.workspaceId },
          changes: { usd: formatUsd(input.amountMicros), note: input.note ?? null },
        });
      return readBalance(trx, input.workspaceId);
    });
  } catch (err) {
    if (isPastBalanceBound(err)) throw pastBoundError(null, input.amountMicros);
    throw err;
  }
}

/**
 * Holding credit is two writes applied together (lib/store/writes.ts, writeList): the hold's own
 * rows (the hold and its ledger entry), here, then the balance, moveHeldFromAvailable, last. A
 * create writes its run between the two (writeQueuedRun).
 */
export function holdWrites(
  db: Db,
  input: { workspaceId: string; amountMicros: Micros; now?: string },
): { holdId: string; writes: Compilable[] } {
  assertPositiveAmount(input.amountMicros, "amount");
  const holdId = newId("hold");
  const now = input.now ?? nowIso();
  const hold = insertRow(db, "credit_holds", {
    id: holdId,
    workspace_id: input.workspaceId,
    amount_micros: input.amountMicros,
    status: "held",
    created_at: now,
    settled_at: null,
  });
  return {
    holdId,
    writes: [
      hold,
      ledgerEntryInsert(db, {
        workspaceId: input.workspaceId,
        kind: "hold",
        amountMicros: input.amountMicros,
        holdId,
        at: now,
      }),
    ],
  };
}

/**
 * The balance side of holds recorded alongside: available down, held up. The balance row's
 * CHECK (available ≥ 0) is the test, so two concurrent holds can never both pass, and a hold
 * the balance cannot cover fails the whole write (isShortOfCredit tells). Callers put it last:
 * every writer of the workspace waits for this row until the commit (PostgreSQL), and lock
 * order stays the same everywhere — a run's queue count (migration 016) before the balance, as
 * a cancel takes them.
 */
export function moveHeldFromAvailable(db: Db, input: { workspaceId: string; amountMicros: Micros }): Compilable {
  return reusedQuery(db, "move held from available", [input.amountMicros, input.amountMicros, input.workspaceId], () =>
    db
      .updateTable("credit_balances")
      .set({
        available_micros: sql`available_micros - ${input.amountMicros}`,
        held_micros: sql`held_micros + ${input.amountMicros}`,
      })
      .where("workspace_id", "=", input.workspaceId),
  );
}

const AVAILABLE_CHECK = "credit_balances_available_nonnegative";

/** True when err is the balance refusing to go below zero: a hold it could not cover. */
function isShortOfCredit(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  if (e?.code === "23514") return e.constraint === AVAILABLE_CHECK;
  return e?.code === "SQLITE_CONSTRAINT_CHECK" && typeof e.message === "string" && e.message.includes(AVAILABLE_CHECK);
}

/** What a list of writes holds, to word insufficient_credit when the balance refuses it. */
export interface HoldNeed {
  workspaceId: string;
  neededMicros: Micros;
  /** Starts the sentence: "This needs", "These 3 runs need". */
  needs: string;
  advice: string;
  /** Who starts the runs and when, for the budgets' refusal (lib/core/budgets/budget-spend.ts). */
  budget?: { creatorId: string; at: string };
}

/**
 * Applies writes that end with a balance move (writeList: all or none, then `read`), turning the balance's
 * refusal into insufficient_credit with what the workspace has available now. Concurrent holds of
 * one workspace are committed together (grouped by workspace), each still all or none.
 */
export async function applyHoldingWrites<R extends { id: string } = never>(
  db: Db,
  writes: readonly Compilable[],
  hold: HoldNeed | null,
  read?: ListRead<R>,
): Promise<R[]> {
  try {
    return await writeList(db, writes, { groupBy: hold?.workspaceId, read });
  } catch (err) {
    if (hold?.budget && isPastBudget(err)) throw await budgetRefusal(db, { ...hold, ...hold.budget });
    if (!hold || !isShortOfCredit(err)) throw err;
    const balance = await readBalance(db, hold.workspaceId);
    throw new ApiError(
      "insufficient_credit",
      `${hold.needs} $${formatUsd(hold.neededMicros)} but the workspace has $${formatUsd(balance.availableMicros)} available. ${hold.advice}`,
    );
  }
}

type HoldOutcome = "charge" | "release";

/**
 * Ends a hold still held, giving its workspace and amount (no row when it had already ended):
 * the first of settling's writes, settledHoldWrites the rest. `hold` is its ID or a query giving
 * it (a run's, lib/engine/finish.ts).
 */
export function endHoldQuery(
  db: Db,
  input: { hold: string | Expression<string | null>; outcome: HoldOutcome; at: string },
): CompiledQuery<{ workspace_id: string; amount_micros: number }> {
  return db
    .updateTable("credit_holds")
    .set({ status: input.outcome === "charge" ? "charged" : "released", settled_at: input.at })
    .where("id", "=", input.hold)
    .where("status", "=", "held")
    .returning(["workspace_id", "amount_micros"])
    .compile();
}

/** The rest of settling an ended hold: its ledger entry, then the balance (the last lock a transaction takes). */
export function settledHoldWrites(
  db: Db,
  input: { holdId: string; workspaceId: string; amountMicros: number; outcome: HoldOutcome; at: string },
): Compilable[] {
  const amount = Number(input.amountMicros);
  return [
    ledgerEntryInsert(db, {
      workspaceId: input.workspaceId,
      kind: input.outcome,
      amountMicros: amount,
      holdId: input.holdId,
      at: input.at,
    }),
    db
      .updateTable("credit_balances")
      .set(
        input.outcome === "charge"
          ? { held_micros: sql`held_micros - ${amount}`, charged_micros: sql`charged_micros + ${amount}` }
          : { held_micros: sql`held_micros - ${amount}`, available_micros: sql`available_micros + ${amount}` },
      )
      .where("workspace_id", "=", input.workspaceId),
  ];
}

/**
 * Ends a hold: "charge" keeps the money (success), "release" gives it back (failure, cancel).
 * A hold ends once; settling it again returns false and moves nothing, so a run is never
 * charged twice.
 */
export async function settleHold(db: Db, input: { holdId: string; outcome: HoldOutcome }): Promise<boolean> {
  return (await settleHoldAmount(db, input)) !== null;
}

/** settleHold giving the amount it settled (null: the hold had already ended), for the budgets' counters. */
export async function settleHoldAmount(
  db: Db,
  input: { holdId: string; outcome: HoldOutcome },
): Promise<Micros | null> {
  return withTransaction(db, async (trx) => {
    const at = nowIso();
    const [hold] = (await trx.executeQuery(endHoldQuery(trx, { hold: input.holdId, outcome: input.outcome, at }))).rows;
    if (!hold) return null;
    await writeList(
      trx,
      settledHoldWrites(trx, {
        holdId: input.holdId,
        workspaceId: hold.workspace_id,
        amountMicros: hold.amount_micros,
        outcome: input.outcome,
        at,
      }),
    );
    return Number(hold.amount_micros);
  });
}

/** Sums the ledger itself, independently of the balance row: what tests and audits compare. */
export async function sumLedger(db: Db, workspaceId: string): Promise<Balance> {
  const rows = await db
    .selectFrom("ledger_entries")
    .select(["kind", (eb) => eb.fn.sum<number>("amount_micros").as("total")])
    .where("workspace_id", "=", workspaceId)
    .groupBy("kind")
    .execute();
  const total = (kind: string) => Number(rows.find((r) => r.kind === kind)?.total ?? 0);
  const held = total("hold") - total("release") - total("charge");
  return {
    grantedMicros: total("grant"),
    chargedMicros: total("charge"),
    heldMicros: held,
    availableMicros: total("grant") - total("hold") + total("release"),
  };
}
