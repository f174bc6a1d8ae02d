// The audit log's retention on its schedule: AUDIT_RETENTION_DAYS (365 unless set), one turn per
// interval across processes (task "audit_purge"), deleting only events older than the retention.
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../boot/config";
import { newId } from "../primitives/ids";
import type { AuditEventsTable } from "../store/database";
import { openTestStore, testDialect, type TestStore } from "../store/testing/test-store";
import { startAuditRetention } from "./audit-retention";

const DAY = 86_400_000;

describe(`audit retention (${testDialect()})`, () => {
  let t: TestStore | null = null;
  afterAll(async () => {
    await t?.cleanup();
  });

  it("is 365 days unless AUDIT_RETENTION_DAYS says otherwise, and its turn purges only older events", async () => {
    t = await openTestStore();
    const DATA_DIR = t.dataDir;
    expect(loadConfig({ DATA_DIR }).auditRetentionDays).toBe(365);
    expect(loadConfig({ DATA_DIR, AUDIT_RETENTION_DAYS: "30" }).auditRetentionDays).toBe(30);
    for (const bad of ["0", "-1", "1.5", "forever", "36501"])
      expect(() => loadConfig({ DATA_DIR, AUDIT_RETENTION_DAYS: bad })).toThrow(/AUDIT_RETENTION_DAYS/);

    const db = t.store.db;
    const event = (daysAgo: number): AuditEventsTable => ({
      id: newId("auditEvent"),
      workspace_id: null,
      action: "model.paused",
      actor_type: "cli",
      actor_id: "cli",
      actor_email: null,
      target_type: "model",
      target_id: "atelier/gradient",
      ip: null,
      changes_json: "{}",
      created_at: new Date(Date.now() - daysAgo * DAY).toISOString(),
    });
    const rows = [event(31), event(29), event(1)];
    await db.insertInto("audit_events").values(rows).execute();
    const retention = startAuditRetention({ db, logger: pino({ level: "silent" }), days: 30, everyMs: 20 });
    try {
      await expect
        .poll(async () =>
          (await db.selectFrom("audit_events").select("id").orderBy("created_at").execute()).map((r) => r.id),
        )
        .toEqual([rows[1]!.id, rows[2]!.id]);
    } finally {
      await retention.stop();
    }
    const task = await db
      .selectFrom("scheduled_tasks")
      .selectAll()
      .where("name", "=", "audit_purge")
      .executeTakeFirst();
    expect(task?.runs).toBeGreaterThanOrEqual(1);
  });
});
