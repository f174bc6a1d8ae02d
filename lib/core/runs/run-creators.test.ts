// Who started a run (generations.created_by, migration 008) and the list filters built on it and on
// batches: the studio's "your newest run of this model", and the runs of one batch.
import { describe, expect, it } from "vitest";
import { useTestStore, testCtx, testDialect } from "../../store/testing/test-store";
import { createBatch } from "./batches";
import type { Ctx } from "../context";
import { encodeCursor } from "../../primitives/cursor";
import { ApiError } from "../../primitives/errors";
import { createGeneration, listGenerations } from "./generations";
import { createWorkspace } from "../workspaces/workspaces";

const gradient = (prompt: string) => ({ model: "atelier/gradient", input: { prompt } });

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe(`run creators and the batch filter (${testDialect()})`, () => {
  const store = useTestStore();

  async function workspaceCtxs(): Promise<{ key: Ctx; alice: Ctx; bob: Ctx }> {
    const ws = await createWorkspace({ db: store.db }, { name: "creators", creditMicros: 1_000_000 });
    const key = testCtx(store.t, ws.id);
    const as = (id: string): Ctx => ({ ...key, actor: { kind: "user", id }, source: "studio" });
    return { key, alice: as("usr_alice"), bob: as("usr_bob") };
  }

  it("records the actor on every run it starts, alone or in a batch, inside the create transaction", async () => {
    const { key, alice } = await workspaceCtxs();
    const one = await createGeneration(alice, gradient("alice's"));
    const batch = await createBatch(key, { requests: [gradient("b0"), gradient("b1")] });
    const rows = await store.db
      .selectFrom("generations")
      .select(["id", "created_by", "source"])
      .where("workspace_id", "=", key.workspaceId)
      .execute();
    const by = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(by[one.generation.id]).toMatchObject({ created_by: "usr_alice", source: "studio" });
    for (const g of batch.batch.data) expect(by[g.id]).toMatchObject({ created_by: "key_test", source: "api" });
    // The API shape does not change: who started a run is not part of a generation.
    expect(Object.keys(one.generation)).not.toContain("created_by");
  });

  it("lists one actor's runs (the model page's newest run by this user), paged with a bound cursor", async () => {
    const { key, alice, bob } = await workspaceCtxs();
    const a1 = await createGeneration(alice, gradient("a1"));
    await createGeneration(bob, gradient("b1"));
    const a2 = await createGeneration(alice, gradient("a2"));
    await createGeneration(bob, { model: "atelier/artwork", input: { prompt: "bob's artwork" } });
    await createGeneration(key, gradient("from a key"));

    const newest = await listGenerations(alice, { model: "atelier/gradient", limit: "1" }, { createdBy: "usr_alice" });
    expect(newest.has_more).toBe(true);
    const next = await listGenerations(
      alice,
      { model: "atelier/gradient", limit: "1", cursor: newest.next_cursor! },
      { createdBy: "usr_alice" },
    );
    expect(next.has_more).toBe(false);
    // Newest first (two runs may share a millisecond; then the ID orders them).
    const [first, second] = [newest.data[0]!, next.data[0]!];
    expect(new Set([first.id, second.id])).toEqual(new Set([a1.generation.id, a2.generation.id]));
    expect(
      first.created_at > second.created_at || (first.created_at === second.created_at && first.id > second.id),
    ).toBe(true);
    // The cursor is bound to the creator: another user's list refuses it.
    expect(
      (
        await refusal(
          listGenerations(
            bob,
            { model: "atelier/gradient", limit: "1", cursor: newest.next_cursor! },
            { createdBy: "usr_bob" },
          ),
        )
      ).param,
    ).toBe("cursor");
    expect(
      (await refusal(listGenerations(alice, { model: "atelier/gradient", limit: "1", cursor: newest.next_cursor! })))
        .param,
    ).toBe("cursor");

    expect((await listGenerations(bob, { model: "atelier/gradient" }, { createdBy: "usr_bob" })).data).toHaveLength(1);
    expect((await listGenerations(bob, {}, { createdBy: "usr_nobody" })).data).toEqual([]);
    expect((await listGenerations(key, {})).data).toHaveLength(5);
    // A key's runs (the studio's "Started by" an API key), and starters that cannot be one: a 400 naming "by".
    const count = async (createdBy: string) => (await listGenerations(bob, {}, { createdBy })).data.length;
    expect((await count("usr_alice")) + (await count("usr_bob")) + (await count("key_test"))).toBe(5);
    expect(await count("key_test")).toBeGreaterThan(0);
    for (const createdBy of ["alice", "ws_x", "usr_\u0000", "usr_" + "x".repeat(5000), "constructor", "usr_a b"]) {
      expect(await refusal(listGenerations(bob, {}, { createdBy }))).toMatchObject({
        code: "invalid_parameter",
        param: "by",
      });
    }
  });

  it("filters by batch, validates the ID, and binds the cursor to it", async () => {
    const { key } = await workspaceCtxs();
    const first = await createBatch(key, { requests: [gradient("x0"), gradient("x1"), gradient("x2")] });
    const second = await createBatch(key, { requests: [gradient("y0")] });
    await createGeneration(key, gradient("alone"));

    const all = await listGenerations(key, { batch: first.batch.id });
    expect(all.data.map((g) => g.id).sort()).toEqual(first.batch.data.map((g) => g.id).sort());
    expect(all.data.every((g) => g.batch_id === first.batch.id)).toBe(true);
    expect((await listGenerations(key, { batch: second.batch.id })).data.map((g) => g.id)).toEqual([
      second.batch.data[0]!.id,
    ]);
    // Another workspace's batch (or one that does not exist) lists nothing.
    const other = await workspaceCtxs();
    expect((await listGenerations(other.key, { batch: first.batch.id })).data).toEqual([]);

    const page = await listGenerations(key, { batch: first.batch.id, limit: "2" });
    expect(page.data).toHaveLength(2);
    const rest = await listGenerations(key, { batch: first.batch.id, limit: "2", cursor: page.next_cursor! });
    expect(rest.data).toHaveLength(1);
    expect(new Set([...page.data, ...rest.data].map((g) => g.id)).size).toBe(3);
    expect(
      (await refusal(listGenerations(key, { batch: second.batch.id, limit: "2", cursor: page.next_cursor! }))).param,
    ).toBe("cursor");
    expect((await refusal(listGenerations(key, { limit: "2", cursor: page.next_cursor! }))).param).toBe("cursor");

    for (const bad of ["", "gen_123", "bat_", "bat_../x", `bat_${"a".repeat(61)}`]) {
      const err = await refusal(listGenerations(key, { batch: bad }));
      expect([err.code, err.param]).toEqual(["invalid_parameter", "batch"]);
    }
  });

  it("keeps cursors made before the new filters existed valid for the same list", async () => {
    const { key } = await workspaceCtxs();
    for (const p of ["c0", "c1", "c2"]) await createGeneration(key, gradient(p));
    const all = (await listGenerations(key, { status: "queued" })).data;
    // The binding of the earlier code: [model, sources, statuses].
    const old = encodeCursor(
      key.services.secretKey,
      { t: all[0]!.created_at, i: all[0]!.id },
      JSON.stringify([null, null, ["queued"]]),
    );
    expect((await listGenerations(key, { limit: "5", status: "queued", cursor: old })).data.map((g) => g.id)).toEqual(
      all.slice(1).map((g) => g.id),
    );
  });
});
