import { spawnSync } from "node:child_process";
import path from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openTestStore, useTestStore, testDialect } from "./testing/test-store";

/** A read that takes about a second on SQLite: a recursive CTE counting to a few million. */
const slowCount = sql<{ n: number }>`
  with recursive counter(i) as (select 1 union all select i + 1 from counter where i < 3000000)
  select count(*) as n from counter`;

async function refusal(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error("expected the query to fail");
}

describe(`the store's reads connection (${testDialect()})`, () => {
  const s = useTestStore();

  it("answers the same rows as the main connection, and sees what it committed", async () => {
    const { store } = s.t;
    const blob = sql.raw(store.dialect === "postgres" ? "bytea" : "blob");
    await sql`create table read_probe (id integer primary key, label text not null, body ${blob})`.execute(store.db);
    await sql`insert into read_probe (id, label, body) values (1, 'one', ${Buffer.from("ab")}), (2, 'two', null)`.execute(
      store.db,
    );
    const query = sql<{ id: number; label: string; body: Buffer | null }>`select * from read_probe order by id`;
    const fromMain = (await query.execute(store.db)).rows;
    const fromReads = (await query.execute(store.reads)).rows;
    expect(fromReads).toEqual(fromMain);
    expect(fromReads[0]!.body).toBeInstanceOf(Buffer);

    // Committed on the main connection after the reads connection has read: seen at the next read.
    await sql`insert into read_probe (id, label) values (3, 'three')`.execute(store.db);
    expect((await query.execute(store.reads)).rows.map((r) => r.label)).toEqual(["one", "two", "three"]);

    // Through the query builder too, with parameters.
    const workspaces = await store.db.selectFrom("workspaces").select("id").where("id", "=", "ws_none").execute();
    expect(await store.reads.selectFrom("workspaces").select("id").where("id", "=", "ws_none").execute()).toEqual(
      workspaces,
    );
  });

  it("fails a read with the store's own error and code", async () => {
    const { store } = s.t;
    const fromMain = await refusal(sql`select * from no_such_table`.execute(store.db));
    const fromReads = await refusal(sql`select * from no_such_table`.execute(store.reads));
    expect(fromReads.message).toBe(fromMain.message);
    expect(fromReads.code).toBe(fromMain.code);
    expect(fromReads.code).toBeTruthy();
    // It goes on answering after a failure.
    expect((await sql<{ one: number }>`select 1 as one`.execute(store.reads)).rows).toEqual([{ one: 1 }]);
  });

  it.runIf(testDialect() === "sqlite")("writes nothing: its connection is read-only", async () => {
    const err = await refusal(sql`create table refused (id integer)`.execute(s.t.store.reads));
    expect(err.code).toBe("SQLITE_READONLY");
    await expect(s.t.store.reads.transaction().execute(async () => undefined)).rejects.toThrow(/no transactions/);
  });

  it.runIf(testDialect() === "sqlite")(
    "a slow read through it does not hold up a query on the main connection",
    async () => {
      const { store } = s.t;
      const finished: string[] = [];
      const slow = slowCount.execute(store.reads).then((r) => {
        finished.push("slow read");
        return r;
      });
      // The thread has the slow query before the main connection's small one is sent.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await store.db
        .selectFrom("workspaces")
        .select("id")
        .limit(1)
        .execute()
        .then(() => finished.push("small query"));
      expect(Number((await slow).rows[0]!.n)).toBe(3_000_000);
      expect(finished).toEqual(["small query", "slow read"]);
    },
  );
});

describe.runIf(testDialect() === "sqlite")("closing the store ends the read thread", () => {
  it("lets the process exit once closed, and while idle", () => {
    // A process of its own: it reads through the thread, closes the store and must then exit by
    // itself (a thread left running would hold it until the timeout).
    const script = `
      const { mkdtempSync } = require("node:fs");
      const os = require("node:os");
      const path = require("node:path");
      const { sql } = require("kysely");
      const { openStore, migrateStore } = require(${JSON.stringify(path.join(__dirname, "store.ts"))});
      (async () => {
        const store = openStore({ databaseUrl: null, dataDir: mkdtempSync(path.join(os.tmpdir(), "atelier-reads-")) });
        await migrateStore(store);
        const { rows } = await sql\`select count(*) as n from workspaces\`.execute(store.reads);
        console.log("read " + rows[0].n);
        if (process.argv.includes("--close")) await store.close();
      })();
    `;
    for (const args of [["--close"], []]) {
      const run = spawnSync(process.execPath, ["--import", "tsx", "-e", script, "--", ...args], {
        cwd: path.join(__dirname, "..", ".."),
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(run.stderr).toBe("");
      expect(run.stdout.trim()).toBe("read 0");
      expect(run.status).toBe(0);
    }
  });

  it("refuses reads once the store is closed", async () => {
    const t = await openTestStore();
    await sql`select 1`.execute(t.store.reads);
    await t.cleanup();
    await expect(sql`select 1`.execute(t.store.reads)).rejects.toThrow(/closed|destroyed/);
  });
});
