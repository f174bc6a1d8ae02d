// Reading the audit log: owners and admins read their workspace's (a CLI key too), creators and
// viewers are refused, another workspace's events never show, ops read every workspace's and the
// install's own; pages go newest first with cursors bound to the filters; bad filters answer 400
// naming the field; the retention purge is the log's only delete. Both stores.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AuditEventsTable } from "../../store/database";
import { testCtx, testDialect, useTestStore } from "../../store/testing/test-store";
import { newId } from "../../primitives/ids";
import { refusal } from "../testing/refusal";
import { scopesOfRole, type Ctx } from "../context";
import { opsPrincipal } from "../ops/ops-principal";
import { createUser } from "../workspaces/users";
import type { MemberRole } from "../workspaces/roles";
import { createWorkspace } from "../workspaces/workspaces";
import type { AuditAction } from "./audit-actions";
import { getAuditEvent, listAuditEvents, listAuditEventsForOps, type AuditPageQuery } from "./audit-events";
import { purgeAuditEvents } from "./audit-retention";
import { CLI_AUDIT } from "./audit-writer";

const DAY = 86_400_000;

describe(`the audit log's readers (${testDialect()})`, () => {
  const s = useTestStore();
  let n = 0;

  async function workspace() {
    const ws = await createWorkspace({ db: s.db }, { name: `log ${++n}`, audit: CLI_AUDIT });
    const as = (role: MemberRole | null): Ctx => ({
      ...testCtx(s.t, ws.id),
      ...(role !== null && { role, scopes: scopesOfRole(role) }),
    });
    return { ws, as };
  }

  /** Events written straight in, at chosen times (the log has no other way to backdate one). */
  async function seed(
    workspaceId: string | null,
    rows: { action: AuditAction; actor?: string; at: string }[],
  ): Promise<AuditEventsTable[]> {
    const made = rows.map((row): AuditEventsTable => ({
      id: newId("auditEvent"),
      workspace_id: workspaceId,
      action: row.action,
      actor_type:
        row.actor === undefined || row.actor === "cli" ? "cli" : row.actor.startsWith("usr_") ? "user" : "key",
      actor_id: row.actor ?? "cli",
      actor_email: null,
      target_type: "workspace",
      target_id: workspaceId ?? "ws_install",
      ip: null,
      changes_json: "{}",
      created_at: row.at,
    }));
    await s.db.insertInto("audit_events").values(made).execute();
    return made;
  }

  async function all(ctx: Ctx, query: AuditPageQuery & { limit?: string }) {
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const page = await listAuditEvents(ctx, { ...query, ...(cursor !== undefined && { cursor }) });
      ids.push(...page.data.map((e) => e.id));
      if (!page.has_more) return ids;
      cursor = page.next_cursor!;
    }
    throw new Error("too many pages");
  }

  it("owners, admins and a CLI key read their workspace's log; creators and viewers cannot; another workspace's never shows", async () => {
    const a = await workspace();
    const b = await workspace();
    const owner = await createUser(
      { db: s.db },
      {
        email: `owner-${n}@example.com`,
        password: "long enough",
        workspaceId: a.ws.id,
        role: "owner",
        audit: CLI_AUDIT,
      },
    );
    for (const role of ["owner", "admin", null] as const) {
      const page = await listAuditEvents(a.as(role), {});
      expect(page).toMatchObject({ object: "list", url: "/v1/audit-events", has_more: false, next_cursor: null });
      expect(page.data.map((e) => e.action)).toEqual(["member.added", "workspace.created"]);
      expect(page.data[0]).toEqual({
        id: expect.stringMatching(/^aud_[0-9A-Za-z]{24}$/),
        object: "audit_event",
        action: "member.added",
        actor: { type: "cli", id: "cli" },
        target: { type: "user", id: owner.id },
        ip: null,
        changes: { email: owner.email, role: { from: null, to: "owner" }, new_user: true, ops: false },
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
    }
    for (const role of ["creator", "viewer"] as const) {
      const refused = await refusal(listAuditEvents(a.as(role), {}));
      expect(refused.code).toBe("permission_denied");
      expect(refused.message).toContain("to read the audit log takes admin or owner");
    }
    // A key without workspace:read reads nothing, whoever made it.
    const readOnly = { ...a.as(null), scopes: ["generations:read" as const] };
    expect((await refusal(listAuditEvents(readOnly, {}))).message).toContain('"workspace:read"');
    const ofB = await listAuditEvents(b.as("owner"), {});
    expect(ofB.data.map((e) => e.target.id)).toEqual([b.ws.id]);
    expect(JSON.stringify(ofB)).not.toContain(a.ws.id);
    expect(JSON.stringify(ofB)).not.toContain(owner.id);
    // One event by its ID: the workspace's own; another's, or no such ID, is not found.
    const mine = (await listAuditEvents(a.as("admin"), {})).data[0]!;
    expect(await getAuditEvent(a.as("admin"), { id: mine.id })).toEqual(mine);
    for (const id of [mine.id, "aud_nothing", "constructor", "aud_\u0000", `aud_${"x".repeat(10_000)}`])
      expect((await refusal(getAuditEvent(b.as("owner"), { id }))).code).toBe("resource_not_found");
    expect((await refusal(getAuditEvent(a.as("viewer"), { id: mine.id }))).code).toBe("permission_denied");
  });

  it("pages newest first; filters on an action or its family, an actor, and a range of days or times", async () => {
    const { ws, as } = await workspace();
    const ctx = as("admin");
    const user = "usr_auditfilterperson00001";
    const key = "key_auditfilterkey00000001";
    const rows = await seed(ws.id, [
      { action: "member.invited", actor: user, at: "2026-03-01T08:00:00.000Z" },
      { action: "member.role_changed", actor: user, at: "2026-03-01T23:59:59.999Z" },
      { action: "key.created", actor: key, at: "2026-03-02T00:00:00.000Z" },
      { action: "key.revoked", actor: "cli", at: "2026-03-02T12:30:00.000Z" },
      { action: "webhook.created", actor: key, at: "2026-03-03T09:00:00.000Z" },
      // Two at the same instant: the ID orders them, and paging splits them cleanly.
      { action: "credit.granted", actor: "cli", at: "2026-03-04T10:00:00.000Z" },
      { action: "credit.granted", actor: "cli", at: "2026-03-04T10:00:00.000Z" },
    ]);
    const newestFirst = [...rows]
      .sort((x, y) => (x.created_at === y.created_at ? (x.id < y.id ? 1 : -1) : x.created_at < y.created_at ? 1 : -1))
      .map((r) => r.id);
    const range = { from: "2026-03-01", to: "2026-03-04" };
    const page = await listAuditEvents(ctx, { ...range, limit: "3" });
    expect(page.data.map((e) => e.id)).toEqual(newestFirst.slice(0, 3));
    expect(page.has_more).toBe(true);
    expect(await all(ctx, { ...range, limit: "2" })).toEqual(newestFirst);
    expect(await all(ctx, { ...range, limit: "1" })).toEqual(newestFirst);

    const ids = (where: (r: AuditEventsTable) => boolean) =>
      newestFirst.filter((id) => where(rows.find((r) => r.id === id)!));
    expect(await all(ctx, { ...range, action: "key.revoked" })).toEqual(ids((r) => r.action === "key.revoked"));
    expect(await all(ctx, { ...range, action: "member", limit: "1" })).toEqual(
      ids((r) => r.action.startsWith("member.")),
    );
    expect(await all(ctx, { ...range, actor: key })).toEqual(ids((r) => r.actor_id === key));
    expect(await all(ctx, { ...range, actor: "cli", action: "credit" })).toEqual(
      ids((r) => r.action === "credit.granted"),
    );
    expect(await all(ctx, { ...range, actor: "usr_nobody" })).toEqual([]);
    // Days are whole UTC days; times are instants, both ends included, in any offset.
    expect(await all(ctx, { from: "2026-03-02", to: "2026-03-02" })).toEqual(
      ids((r) => r.created_at.startsWith("2026-03-02")),
    );
    expect(await all(ctx, { from: "2026-03-01T23:59:59.999Z", to: "2026-03-02T00:00:00Z" })).toEqual(
      ids((r) => r.created_at >= "2026-03-01T23:59:59.999Z" && r.created_at <= "2026-03-02T00:00:00.000Z"),
    );
    expect(await all(ctx, { from: "2026-03-02T13:30:00+01:00", to: "2026-03-02t12:30:00z" })).toEqual(
      ids((r) => r.action === "key.revoked"),
    );

    // A cursor goes with the filters it was made with.
    const first = await listAuditEvents(ctx, { ...range, action: "member", limit: "1" });
    const moved = await refusal(listAuditEvents(ctx, { ...range, action: "key", cursor: first.next_cursor! }));
    expect(moved).toMatchObject({ code: "invalid_parameter", param: "cursor" });
    expect(moved.message).toContain("other filters");
    // Another workspace cannot use it to read on.
    const other = await workspace();
    expect(
      (
        await refusal(
          listAuditEvents(other.as("owner"), { ...range, action: "member", limit: "1", cursor: first.next_cursor! }),
        )
      ).param,
    ).toBe("cursor");
  });

  it("answers malformed filters with a 400 naming the field, never a failed query", async () => {
    const { as } = await workspace();
    const ctx = as("owner");
    const cases: [AuditPageQuery, string][] = [
      [{ action: "member.nope" }, "action"],
      [{ action: "constructor" }, "action"],
      [{ action: "__proto__" }, "action"],
      [{ action: "toString" }, "action"],
      [{ action: "member.\u0000" }, "action"],
      [{ action: "x".repeat(100_000) }, "action"],
      [{ action: "member%" }, "action"],
      [{ actor: "bob" }, "actor"],
      [{ actor: "usr_\u0000" }, "actor"],
      [{ actor: "ws_abc" }, "actor"],
      [{ actor: "constructor" }, "actor"],
      [{ actor: `usr_${"a".repeat(100_000)}` }, "actor"],
      [{ from: "yesterday" }, "from"],
      [{ from: "2026-02-30" }, "from"],
      [{ from: "2026-13-01" }, "from"],
      [{ from: "2026-03-01T24:00:00Z" }, "from"],
      [{ from: "2026-03-01T10:00:00" }, "from"],
      [{ from: "2026-03-01T10:00:00+25:00" }, "from"],
      [{ from: "0000-01-01" }, "from"],
      [{ from: "0001-01-01T00:30:00+01:00" }, "from"],
      [{ from: "2026-03-01\u0000" }, "from"],
      [{ from: "9".repeat(100_000) }, "from"],
      [{ to: "1714000000" }, "to"],
      [{ to: "2026-03-01T10:00:00.000+00:00x" }, "to"],
      [{ to: "constructor" }, "to"],
      [{ from: "2026-03-05", to: "2026-03-04" }, "from"],
      [{ cursor: "nope" }, "cursor"],
      [{ cursor: "a.b" }, "cursor"],
      [{ cursor: "x".repeat(10_000) }, "cursor"],
      [{ cursor: "\u0000" }, "cursor"],
      [{ limit: "0" }, "limit"],
      [{ limit: "101" }, "limit"],
      [{ limit: "ten" }, "limit"],
      [{ limit: "1e2" }, "limit"],
    ];
    for (const [query, param] of cases) {
      const err = await refusal(listAuditEvents(ctx, query));
      expect(err, JSON.stringify(query).slice(0, 80)).toMatchObject({ code: "invalid_parameter", param });
      expect(err.message.length).toBeLessThan(400);
      expect(err.message).not.toContain("\u0000");
    }
    // The edges that are fine.
    for (const query of [
      { from: "0001-01-01", to: "9999-12-31" },
      { from: "2026-03-01T10:00:00.123456789Z" },
      { to: "2026-03-01T10:00:00-12:00" },
      { action: "", actor: "", from: "", to: "" },
    ])
      expect((await listAuditEvents(ctx, query)).object).toBe("list");
  });

  it("ops read every workspace's events, one workspace's, or the install's own", async () => {
    const a = await workspace();
    const b = await workspace();
    const operator = await createUser(
      { db: s.db },
      { email: `ops-${n}@example.com`, password: "long enough", workspaceId: a.ws.id, role: "owner", ops: true },
    );
    const ops = await opsPrincipal(s.db, operator.id);
    const services = testCtx(s.t, a.ws.id).services;
    const [pause] = await seed(null, [{ action: "model.paused", at: new Date().toISOString() }]);
    const everyone = await listAuditEventsForOps(ops, services, { limit: "100" });
    const seen = everyone.data.map((e) => e.workspace_id);
    expect(seen).toEqual(expect.arrayContaining([a.ws.id, b.ws.id, null]));
    expect(everyone.data.find((e) => e.workspace_id === b.ws.id)).toMatchObject({ workspace_name: b.ws.name });
    const onlyB = await listAuditEventsForOps(ops, services, { workspace: b.ws.id });
    expect(onlyB.data.map((e) => [e.action, e.workspace_id])).toEqual([["workspace.created", b.ws.id]]);
    const install = await listAuditEventsForOps(ops, services, { workspace: "install" });
    expect(install.data.map((e) => e.id)).toContain(pause!.id);
    expect(install.data.every((e) => e.workspace_id === null && e.workspace_name === null)).toBe(true);
    // A workspace's own readers never see the install's events.
    expect((await listAuditEvents(a.as("owner"), {})).data.map((e) => e.id)).not.toContain(pause!.id);
    for (const workspace of ["nope", "constructor", "ws_\u0000", "usr_abc"])
      expect(await refusal(listAuditEventsForOps(ops, services, { workspace }))).toMatchObject({
        code: "invalid_parameter",
        param: "workspace",
      });
    // The cursor is bound to the workspace chosen too.
    const paged = await listAuditEventsForOps(ops, services, { limit: "1" });
    expect(
      (await refusal(listAuditEventsForOps(ops, services, { workspace: b.ws.id, cursor: paged.next_cursor! }))).param,
    ).toBe("cursor");
  });

  it("the retention purge deletes only events past it, and nothing else in the code updates or deletes the log", async () => {
    const { ws, as } = await workspace();
    const now = Date.parse("2027-06-01T00:00:00.000Z");
    const [old, edge, fresh] = await seed(ws.id, [
      { action: "key.created", at: new Date(now - 366 * DAY).toISOString() },
      { action: "key.revoked", at: new Date(now - 365 * DAY).toISOString() },
      { action: "credit.granted", at: new Date(now - 364 * DAY).toISOString() },
    ]);
    const before = (await all(as("owner"), {})).length;
    expect(await purgeAuditEvents({ db: s.db }, { now })).toBeGreaterThanOrEqual(1);
    const left = await all(as("owner"), {});
    expect(left).not.toContain(old!.id);
    expect(left).toEqual(expect.arrayContaining([edge!.id, fresh!.id]));
    expect(left.length).toBe(before - 1);
    expect(await purgeAuditEvents({ db: s.db }, { olderThanDays: 1, now })).toBeGreaterThanOrEqual(2);
    expect(await all(as("owner"), {})).not.toEqual(expect.arrayContaining([edge!.id]));

    // Append-only: every source file that names the table, and what it does with it.
    const root = path.resolve(__dirname, "../../..");
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        if (name === "node_modules" || name.startsWith(".")) continue;
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (/\.tsx?$/.test(name) && !/\.test\.ts$/.test(name)) files.push(full);
      }
    };
    for (const dir of ["lib", "api", "app", "bin", "components", "scripts"]) walk(path.join(root, dir));
    const writers = files.filter((file) =>
      /(updateTable|deleteFrom)\(\s*"audit_events"|(update|delete\s+from)\s+"?audit_events/i.test(
        readFileSync(file, "utf8"),
      ),
    );
    expect(writers.map((file) => path.relative(root, file))).toEqual(["lib/core/audit/audit-retention.ts"]);
    expect(readFileSync(path.join(root, "lib/core/audit/audit-retention.ts"), "utf8")).not.toMatch(/updateTable/);
  });
});
