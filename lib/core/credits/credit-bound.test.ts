// The bound on a workspace's balance (LIMITS.maxBalanceMicros, migration 017): a grant past it is
// refused as invalid_parameter with nothing written, concurrent grants cannot squeeze past it
// together, the store itself refuses any other write past it, and a balance at the bound reads.
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { getCredits, grantCredit, readBalance, sumLedger } from "./credits";
import { ApiError } from "../../primitives/errors";
import { LIMITS } from "../../primitives/limits";
import { createWorkspace } from "../workspaces/workspaces";
import { CLI_AUDIT } from "../audit/audit-writer";

const USD = 1_000_000;
const MAX = LIMITS.maxBalanceMicros;

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe(`balance bound (${testDialect()})`, () => {
  const s = useTestStore();
  const workspace = async (creditMicros?: number) =>
    (await createWorkspace({ db: s.db }, { name: "bound test", creditMicros })).id;

  it("is $1,000,000,000, far below 2^53 micro-dollars", () => {
    expect(MAX).toBe(1_000_000_000 * USD);
    expect(Number.isSafeInteger(MAX * 2)).toBe(true);
  });

  it("ten grants of $999,999,999: the second is refused, nothing written, and the balance still reads", async () => {
    const ws = await workspace();
    await grantCredit({ db: s.db }, { workspaceId: ws, amountMicros: 999_999_999 * USD, audit: CLI_AUDIT });
    for (let i = 0; i < 9; i++) {
      const err = await refusal(
        grantCredit({ db: s.db }, { workspaceId: ws, amountMicros: 999_999_999 * USD, audit: CLI_AUDIT }),
      );
      expect(err.code).toBe("invalid_parameter");
      expect(err.param).toBe("usd");
      expect(err.message).toBe(
        "A workspace holds at most $1000000000.00 of credit (available plus held); adding $999999999.00 would pass it: at most $1.00 more can be added now.",
      );
    }
    const ledger = await sumLedger(s.db, ws);
    expect(ledger.grantedMicros).toBe(999_999_999 * USD);
    expect(await getCredits(testCtx(s.t, ws))).toEqual({
      object: "credits",
      available_usd: "999999999.00",
      held_usd: "0.00",
    });
    // Up to the bound exactly is allowed, one micro-dollar more is not.
    await grantCredit({ db: s.db }, { workspaceId: ws, amountMicros: USD, audit: CLI_AUDIT });
    expect(
      (await refusal(grantCredit({ db: s.db }, { workspaceId: ws, amountMicros: 1, audit: CLI_AUDIT }))).code,
    ).toBe("invalid_parameter");
    expect(await getCredits(testCtx(s.t, ws))).toEqual({
      object: "credits",
      available_usd: "1000000000.00",
      held_usd: "0.00",
    });
  });

  it("one grant larger than the bound, and an opening credit past it, are refused", async () => {
    const ws = await workspace();
    expect(
      (await refusal(grantCredit({ db: s.db }, { workspaceId: ws, amountMicros: MAX + 1, audit: CLI_AUDIT }))).code,
    ).toBe("invalid_parameter");
    expect((await refusal(workspace(MAX + 1))).code).toBe("invalid_parameter");
    expect((await readBalance(s.db, ws)).availableMicros).toBe(0);
  });

  it("held credit counts: a grant that fits available alone but not available + held is refused", async () => {
    const ws = await workspace(MAX);
    await s.db
      .updateTable("credit_balances")
      .set({ available_micros: sql`available_micros - ${USD}`, held_micros: sql`held_micros + ${USD}` })
      .where("workspace_id", "=", ws)
      .execute();
    expect(
      (await refusal(grantCredit({ db: s.db }, { workspaceId: ws, amountMicros: USD, audit: CLI_AUDIT }))).param,
    ).toBe("usd");
  });

  it("concurrent grants cannot pass it together: exactly the ones that fit commit", async () => {
    const ws = await workspace(MAX - 5 * USD);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        grantCredit({ db: s.db }, { workspaceId: ws, amountMicros: USD, audit: CLI_AUDIT }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    for (const r of results) if (r.status === "rejected") expect((r.reason as ApiError).code).toBe("invalid_parameter");
    const balance = await readBalance(s.db, ws);
    expect(balance.availableMicros).toBe(MAX);
    expect((await sumLedger(s.db, ws)).grantedMicros).toBe(MAX);
  });

  it("the store refuses any write past it, whoever makes it", async () => {
    const ws = await workspace(MAX);
    const bypass = s.db
      .updateTable("credit_balances")
      .set({ available_micros: sql`available_micros + 1`, granted_micros: sql`granted_micros + 1` })
      .where("workspace_id", "=", ws)
      .execute();
    await expect(bypass).rejects.toThrow(/credit_balances_within_bound/);
    expect((await readBalance(s.db, ws)).availableMicros).toBe(MAX);
  });
});
