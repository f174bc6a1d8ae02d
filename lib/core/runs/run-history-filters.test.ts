// The studio's history filters on listGenerations (prompt words, a range of days) and the batch
// sizes of its groups: both stores, wildcards taken literally, cursors bound to the filters.
import { describe, expect, it } from "vitest";
import { useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { createBatch } from "./batches";
import { ApiError } from "../../primitives/errors";
import { countBatchRuns, createGeneration, listGenerations, PROMPT_SEARCH_MAX } from "./generations";
import { createWorkspace } from "../workspaces/workspaces";

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe(`the studio's history filters (${testDialect()})`, () => {
  const store = useTestStore();

  async function setup() {
    const ws = await createWorkspace({ db: store.db }, { name: "history", creditMicros: 1_000_000 });
    const ctx = { ...testCtx(store.t, ws.id), source: "studio" as const };
    const run = async (prompt: string) =>
      (await createGeneration(ctx, { model: "atelier/gradient", input: { prompt } })).generation;
    return { ctx, run };
  }

  it("finds runs by prompt words, case-insensitively, with % _ \\ and quotes taken literally", async () => {
    const { ctx, run } = await setup();
    const sunset = await run("Pastel SUNSET over hills");
    const percent = await run("100% orange");
    const underscore = await run("snake_case sky");
    const quoted = await run('a "quoted" back\\slash');
    await run("plain sea");
    const ids = async (prompt: string) => (await listGenerations(ctx, {}, { prompt })).data.map((g) => g.id);
    expect(await ids("sunset")).toEqual([sunset.id]);
    expect(await ids("  pastel sunset ")).toEqual([sunset.id]);
    expect(await ids("%")).toEqual([percent.id]);
    expect(await ids("e_c")).toEqual([underscore.id]);
    expect(await ids('"quoted"')).toEqual([quoted.id]);
    expect(await ids("back\\slash")).toEqual([quoted.id]);
    expect(await ids("nowhere")).toEqual([]);
    // Blank search is no search.
    expect(await ids("   ")).toHaveLength(5);
  });

  it("refuses a NUL or an over-long search with invalid_parameter", async () => {
    const { ctx } = await setup();
    expect((await refusal(listGenerations(ctx, {}, { prompt: "a\u0000b" }))).code).toBe("invalid_parameter");
    const long = await refusal(listGenerations(ctx, {}, { prompt: "x".repeat(PROMPT_SEARCH_MAX + 1) }));
    expect(long).toMatchObject({ code: "invalid_parameter", param: "q" });
  });

  it("narrows to a range of whole days (UTC) and refuses malformed or reversed ranges", async () => {
    const { ctx, run } = await setup();
    const old = await run("old one");
    const recent = await run("recent one");
    await store.db
      .updateTable("generations")
      .set({ created_at: "2026-01-10T23:59:59.000Z" })
      .where("id", "=", old.id)
      .execute();
    await store.db
      .updateTable("generations")
      .set({ created_at: "2026-01-12T00:00:00.000Z" })
      .where("id", "=", recent.id)
      .execute();
    const ids = async (from?: string, to?: string) =>
      (await listGenerations(ctx, {}, { from, to })).data.map((g) => g.id);
    expect(await ids("2026-01-10", "2026-01-10")).toEqual([old.id]);
    expect(await ids("2026-01-11", "2026-01-11")).toEqual([]);
    expect(await ids("2026-01-11")).toEqual([recent.id]);
    expect(await ids(undefined, "2026-01-11")).toEqual([old.id]);
    expect(await ids("2026-01-01", "2026-01-31")).toEqual([recent.id, old.id]);
    for (const bad of ["2026-02-30", "yesterday", "2026-1-1", "2026-01-01T00:00:00Z"]) {
      expect(await refusal(listGenerations(ctx, {}, { from: bad }))).toMatchObject({
        code: "invalid_parameter",
        param: "from",
      });
    }
    expect((await refusal(listGenerations(ctx, {}, { from: "2026-01-12", to: "2026-01-11" }))).param).toBe("from");
  });

  it("pages the filtered list with a cursor bound to the filters", async () => {
    const { ctx, run } = await setup();
    const a = await run("fox one");
    await run("hare");
    const b = await run("fox two");
    const c = await run("fox three");
    const first = await listGenerations(ctx, { limit: "2" }, { prompt: "fox" });
    expect(first.data).toHaveLength(2);
    const second = await listGenerations(ctx, { limit: "2", cursor: first.next_cursor! }, { prompt: "fox" });
    expect(second.data).toHaveLength(1);
    expect(second.has_more).toBe(false);
    // Every fox once across the pages (runs made in the same millisecond come in ID order, so
    // the order of the three is not fixed).
    expect([...first.data, ...second.data].map((g) => g.id).sort()).toEqual([a.id, b.id, c.id].sort());
    // The cursor belongs to the "fox" list: another search, or none, refuses it.
    expect(
      (await refusal(listGenerations(ctx, { limit: "2", cursor: first.next_cursor! }, { prompt: "hare" }))).param,
    ).toBe("cursor");
    expect((await refusal(listGenerations(ctx, { limit: "2", cursor: first.next_cursor! }))).param).toBe("cursor");
    expect(
      (
        await refusal(
          listGenerations(ctx, { limit: "2", cursor: first.next_cursor! }, { prompt: "fox", from: "2026-01-01" }),
        )
      ).param,
    ).toBe("cursor");
    // An API cursor without studio filters stays as it was.
    const plain = await listGenerations(ctx, { limit: "1" });
    expect((await listGenerations(ctx, { limit: "1", cursor: plain.next_cursor! })).data).toHaveLength(1);
  });

  it("counts each batch's runs for the history's groups, in this workspace only", async () => {
    const { ctx } = await setup();
    const other = await setup();
    const { batch } = await createBatch(ctx, {
      requests: [0, 1, 2].map((i) => ({ model: "atelier/gradient", input: { prompt: `b${i}` } })),
    });
    const sizes = await countBatchRuns(ctx, [batch.id, batch.id, "bat_missing", "not-a-batch"]);
    expect(Object.fromEntries(sizes)).toEqual({ [batch.id]: 3 });
    expect((await countBatchRuns(other.ctx, [batch.id])).size).toBe(0);
    expect((await countBatchRuns(ctx, [])).size).toBe(0);
  });
});
