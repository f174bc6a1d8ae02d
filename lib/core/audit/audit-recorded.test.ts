// Every audited verb writes exactly one event in its own transaction, with who did it (a user with
// their email, a key, the CLI), from where, what it touched and what changed, and never a secret; a
// change refused or rolled back writes none. Both stores.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AuditEventsTable } from "../../store/database";
import { testCtx, testDialect, useTestStore } from "../../store/testing/test-store";
import { withTransaction } from "../../store/writes";
import { seededRun } from "../testing/history-seed";
import { refusal } from "../testing/refusal";
import { scopesOfRole, type Ctx } from "../context";
import { pauseModel, resumeModel } from "../catalog/model-pauses";
import { grantCredit } from "../credits/credits";
import { createApiKey, revokeApiKey } from "../keys/api-keys";
import { createShareLink, revokeShareLink } from "../shares/share-links";
import { createWebhookEndpoint, deleteWebhookEndpoint, updateWebhookEndpoint } from "../webhooks/webhook-endpoints";
import { ensureWebhookSecret, rotateDefaultWebhookSecret } from "../webhooks/webhook-secrets";
import { acceptInvitation, createInvitation, revokeInvitation } from "../workspaces/invitations";
import { addMember, removeMember, setCreatorKeys, setMemberRole, type MembersCtx } from "../workspaces/members";
import type { MemberRole } from "../workspaces/roles";
import { createUser, removeUser, setUserOps, setUserPassword } from "../workspaces/users";
import { createWorkspace } from "../workspaces/workspaces";
import { CLI_AUDIT, recordAudit, type AuditChanges } from "./audit-writer";

const IP = "203.0.113.7";

describe(`audited changes (${testDialect()})`, () => {
  const s = useTestStore();
  let n = 0;

  /** A workspace made by the CLI, its owner, and Ctxs acting as a member with a role, from IP. */
  async function team() {
    const tag = `${++n}-${randomBytes(3).toString("hex")}`;
    const ws = await createWorkspace({ db: s.db }, { name: `audited ${tag}`, audit: CLI_AUDIT });
    const owner = await createUser(
      { db: s.db },
      {
        email: `owner-${tag}@example.com`,
        password: "long enough",
        workspaceId: ws.id,
        role: "owner",
        audit: CLI_AUDIT,
      },
    );
    const member = (role: MemberRole, userId = owner.id): Ctx => ({
      ...testCtx(s.t, ws.id),
      actor: { kind: "user", id: userId },
      scopes: scopesOfRole(role),
      role,
      source: "studio",
      ip: IP,
    });
    return { ws, owner, tag, member, key: { ...testCtx(s.t, ws.id), ip: IP } as Ctx };
  }

  async function eventsWhere(where: { workspaceId?: string | null; targetId?: string }): Promise<AuditEventsTable[]> {
    let q = s.db.selectFrom("audit_events").selectAll();
    if (where.workspaceId === null) q = q.where("workspace_id", "is", null);
    else if (where.workspaceId !== undefined) q = q.where("workspace_id", "=", where.workspaceId);
    if (where.targetId !== undefined) q = q.where("target_id", "=", where.targetId);
    return q.orderBy("created_at").orderBy("id").execute();
  }

  /** Runs `work` and answers the events it wrote where `where` looks; `count` of them. */
  async function written<T>(
    where: { workspaceId?: string | null; targetId?: string },
    work: () => Promise<T>,
    count = 1,
  ): Promise<{ value: T; events: AuditEventsTable[] }> {
    const before = new Set((await eventsWhere(where)).map((e) => e.id));
    const value = await work();
    const events = (await eventsWhere(where)).filter((e) => !before.has(e.id));
    expect(events.map((e) => e.action)).toHaveLength(count);
    return { value, events };
  }

  const changesOf = (event: AuditEventsTable) => JSON.parse(event.changes_json) as Record<string, unknown>;

  it("members, roles, invitations and ended sessions: one event each, with the actor, the address and the change", async () => {
    const { ws, owner, tag } = await team();
    const opening = await eventsWhere({ workspaceId: ws.id });
    expect(opening.map((e) => [e.action, e.actor_type, e.actor_id, e.target_id])).toEqual([
      ["workspace.created", "cli", "cli", ws.id],
      ["member.added", "cli", "cli", owner.id],
    ]);
    expect(changesOf(opening[1]!)).toEqual({
      email: owner.email,
      role: { from: null, to: "owner" },
      new_user: true,
      ops: false,
    });
    const asOwner: MembersCtx = {
      db: s.db,
      workspaceId: ws.id,
      actor: { kind: "user", id: owner.id },
      role: "owner",
      ip: IP,
    };

    const invited = await written({ workspaceId: ws.id }, () =>
      createInvitation(asOwner, { email: `new-${tag}@example.com`, role: "viewer" }),
    );
    expect(invited.events[0]).toMatchObject({
      action: "member.invited",
      actor_type: "user",
      actor_id: owner.id,
      actor_email: owner.email,
      target_type: "invitation",
      target_id: invited.value.id,
      ip: IP,
    });
    expect(changesOf(invited.events[0]!)).toEqual({ email: `new-${tag}@example.com`, role: "viewer" });
    expect(invited.events[0]!.changes_json).not.toContain(invited.value.token);

    const joined = await written({ workspaceId: ws.id }, () =>
      acceptInvitation(s.db, {
        token: invited.value.token,
        newUser: { name: "Ada", password: "ada's password" },
        ip: "198.51.100.2",
      }),
    );
    expect(joined.events[0]).toMatchObject({
      action: "member.joined",
      actor_type: "user",
      actor_id: joined.value.userId,
      actor_email: `new-${tag}@example.com`,
      target_id: joined.value.userId,
      ip: "198.51.100.2",
    });
    expect(changesOf(joined.events[0]!)).toMatchObject({ role: { from: null, to: "viewer" }, new_user: true });
    expect(joined.events[0]!.changes_json).not.toContain("ada's password");

    const second = await createInvitation(asOwner, { email: `later-${tag}@example.com`, role: "admin" });
    const revoked = await written({ workspaceId: ws.id }, () => revokeInvitation(asOwner, { id: second.id }));
    expect(revoked.events[0]).toMatchObject({ action: "member.invitation_revoked", target_id: second.id });

    const promoted = await written({ workspaceId: ws.id }, () =>
      setMemberRole(asOwner, { userId: joined.value.userId, role: "creator" }),
    );
    expect(promoted.events[0]).toMatchObject({ action: "member.role_changed", target_type: "user" });
    expect(changesOf(promoted.events[0]!)).toEqual({
      email: `new-${tag}@example.com`,
      role: { from: "viewer", to: "creator" },
      sessions_ended: true,
    });

    const other = await createUser(
      { db: s.db },
      { email: `other-${tag}@example.com`, password: "long enough", workspaceId: (await team()).ws.id, role: "owner" },
    );
    const cli: MembersCtx = { db: s.db, workspaceId: ws.id, ...CLI_AUDIT };
    const added = await written({ workspaceId: ws.id }, () => addMember(cli, { email: other.email, role: "admin" }));
    expect(added.events[0]).toMatchObject({ action: "member.added", actor_type: "cli", actor_email: null, ip: null });

    const keysOn = await written({ workspaceId: ws.id }, () => setCreatorKeys(asOwner, { allowed: true }));
    expect(changesOf(keysOn.events[0]!)).toEqual({ creator_keys: { from: false, to: true } });

    // The member's key goes with them: named in the one event, not an event of its own.
    const theirKey = await createApiKey(
      { db: s.db },
      {
        workspaceId: ws.id,
        prefix: "atl",
        maker: { userId: joined.value.userId, role: "creator" },
        audit: { actor: { kind: "user", id: joined.value.userId } },
      },
    );
    const removed = await written({ workspaceId: ws.id }, () => removeMember(asOwner, { userId: joined.value.userId }));
    expect(removed.events[0]).toMatchObject({ action: "member.removed", target_id: joined.value.userId });
    expect(changesOf(removed.events[0]!)).toEqual({
      email: `new-${tag}@example.com`,
      role: { from: "creator", to: null },
      keys_revoked: [theirKey.id],
      sessions_ended: true,
    });
  });

  it("keys, webhook endpoints, the signing secret, share links and credit: one event each, never a secret", async () => {
    const { ws, owner, member, key } = await team();
    const admin = member("admin");

    const made = await written({ workspaceId: ws.id }, () =>
      createApiKey(s, {
        workspaceId: ws.id,
        name: "deploys",
        prefix: "atl",
        scopes: ["generations:read"],
        maker: { userId: owner.id, role: "owner" },
        audit: admin,
      }),
    );
    const keyEvent = made.events[0]!;
    expect(keyEvent).toMatchObject({ action: "key.created", target_type: "api_key", target_id: made.value.id, ip: IP });
    expect(changesOf(keyEvent)).toMatchObject({ name: "deploys", scopes: ["generations:read"], member: owner.id });
    for (const secret of [made.value.key, made.value.key.slice(-12), made.value.hint])
      expect(keyEvent.changes_json).not.toContain(secret);
    const keyRevoked = await written({ workspaceId: ws.id }, () =>
      revokeApiKey(s, { keyId: made.value.id, workspaceId: ws.id, audit: CLI_AUDIT }),
    );
    expect(keyRevoked.events[0]).toMatchObject({ action: "key.revoked", actor_type: "cli", target_id: made.value.id });
    // Revoking again changes nothing and records nothing.
    await written({ workspaceId: ws.id }, () => revokeApiKey(s, { keyId: made.value.id, audit: CLI_AUDIT }), 0);

    // The URL's path and query may carry the receiver's own token: only the host is kept.
    const url = "http://127.0.0.1:9/hooks/tok-9f8e7d?sig=qwerty";
    const hook = await written({ workspaceId: ws.id }, () =>
      createWebhookEndpoint(key, { url, description: "deploy bot", event_types: ["generation.failed"] }),
    );
    expect(hook.events[0]).toMatchObject({
      action: "webhook.created",
      actor_type: "key",
      actor_id: "key_test",
      ip: IP,
    });
    expect(changesOf(hook.events[0]!)).toEqual({
      host: "127.0.0.1:9",
      description: "deploy bot",
      event_types: ["generation.failed"],
      enabled: true,
    });
    const updated = await written({ workspaceId: ws.id }, () =>
      updateWebhookEndpoint(admin, {
        id: hook.value.id,
        body: { url: "http://127.0.0.2:9/hooks/tok-123456", enabled: false },
      }),
    );
    expect(changesOf(updated.events[0]!)).toEqual({
      host: { from: "127.0.0.1:9", to: "127.0.0.2:9" },
      enabled: { from: true, to: false },
    });
    const gone = await written({ workspaceId: ws.id }, () => deleteWebhookEndpoint(admin, { id: hook.value.id }));
    expect(gone.events[0]).toMatchObject({ action: "webhook.deleted", target_id: hook.value.id });
    for (const event of [...hook.events, ...updated.events, ...gone.events])
      expect(event.changes_json).not.toMatch(/tok-|qwerty/);

    const before = await ensureWebhookSecret(s.db, ws.id);
    const rotated = await written({ workspaceId: ws.id }, () => rotateDefaultWebhookSecret(admin));
    expect(rotated.events[0]).toMatchObject({ action: "webhook.secret_rotated", target_type: "workspace" });
    expect(rotated.events[0]!.changes_json).not.toContain(before.secret);
    expect(rotated.events[0]!.changes_json).not.toContain(rotated.value.secret);
    expect(rotated.events[0]!.changes_json).not.toContain("whsec_");

    const run = {
      ...seededRun({ workspaceId: ws.id, runs: 1, tag: randomBytes(4).toString("hex") }, 0),
      status: "succeeded" as const,
    };
    await s.db.insertInto("generations").values(run).execute();
    const shared = await written({ workspaceId: ws.id }, () => createShareLink(member("creator"), { runId: run.id }));
    expect(shared.events[0]).toMatchObject({ action: "share_link.created", target_id: shared.value.id });
    expect(changesOf(shared.events[0]!)).toMatchObject({ run_id: run.id, show_input: false });
    expect(shared.events[0]!.changes_json).not.toContain(shared.value.token.slice(0, 24));
    await written({ workspaceId: ws.id }, () => revokeShareLink(member("creator"), { id: shared.value.id }));
    await written({ workspaceId: ws.id }, () => revokeShareLink(member("creator"), { id: shared.value.id }), 0);

    const granted = await written({ workspaceId: ws.id }, () =>
      grantCredit(s, { workspaceId: ws.id, amountMicros: 2_500_000, note: "top-up", audit: CLI_AUDIT }),
    );
    expect(granted.events[0]).toMatchObject({ action: "credit.granted", actor_type: "cli", target_id: ws.id });
    expect(changesOf(granted.events[0]!)).toEqual({ usd: "2.50", note: "top-up" });
  });

  it("the install's own changes (pauses, a password, the ops flag, a user removed) have no workspace", async () => {
    const a = await team();
    const b = await team();
    const operator = { actor: { kind: "user" as const, id: a.owner.id }, ip: IP };
    const model = "atelier/gradient-classic";
    const paused = await written({ workspaceId: null, targetId: model }, () =>
      pauseModel(s, { modelId: model, until: null, reason: "maintenance", audit: operator }),
    );
    expect(paused.events[0]).toMatchObject({
      action: "model.paused",
      target_type: "model",
      actor_email: a.owner.email,
    });
    expect(changesOf(paused.events[0]!)).toEqual({ until: null, reason: "maintenance" });
    await written({ workspaceId: null, targetId: model }, () => resumeModel(s, { modelId: model, audit: operator }));
    // Resuming what is not paused records nothing.
    await written({ workspaceId: null, targetId: model }, () => resumeModel(s, { modelId: model, audit: operator }), 0);

    const user = await createUser(
      { db: s.db },
      { email: `both-${a.tag}@example.com`, password: "long enough", workspaceId: a.ws.id, role: "admin" },
    );
    await addMember({ db: s.db, workspaceId: b.ws.id, ...CLI_AUDIT }, { email: user.email, role: "viewer" });
    const reset = await written({ targetId: user.id }, () =>
      setUserPassword(s, { email: user.email, password: "a brand new one", audit: CLI_AUDIT }),
    );
    expect(reset.events[0]).toMatchObject({ action: "user.password_reset", workspace_id: null });
    expect(changesOf(reset.events[0]!)).toEqual({ email: user.email, sessions_ended: true });
    expect(reset.events[0]!.changes_json).not.toContain("a brand new one");
    const ops = await written({ targetId: user.id }, () =>
      setUserOps(s, { email: user.email, ops: true, audit: CLI_AUDIT }),
    );
    expect(changesOf(ops.events[0]!)).toEqual({
      email: user.email,
      ops: { from: false, to: true },
      sessions_ended: true,
    });

    // Leaving the install: each workspace hears of it, and so does the install.
    const left = await written({ targetId: user.id }, () => removeUser(s, { email: user.email, audit: CLI_AUDIT }), 3);
    expect(left.events.map((e) => [e.action, e.workspace_id]).sort()).toEqual(
      [
        ["member.removed", a.ws.id],
        ["member.removed", b.ws.id],
        ["user.removed", null],
      ].sort(),
    );
  });

  it("a change refused, conflicting or rolled back writes no event", async () => {
    const { ws, owner, tag, member } = await team();
    const quiet = async (work: () => Promise<unknown>) => {
      await written({ workspaceId: ws.id }, () => refusal(work()), 0);
    };
    const as = (role: MemberRole): MembersCtx => ({
      db: s.db,
      workspaceId: ws.id,
      actor: { kind: "user", id: owner.id },
      role,
    });
    // Refused by role or scope before anything is read.
    await quiet(() => setMemberRole(as("viewer"), { userId: owner.id, role: "viewer" }));
    await quiet(() => createWebhookEndpoint(member("creator"), { url: "http://127.0.0.1:9/x" }));
    await quiet(() => setCreatorKeys(as("creator"), { allowed: true }));
    await quiet(() =>
      createApiKey(s, {
        workspaceId: ws.id,
        prefix: "atl",
        maker: { userId: owner.id, role: "viewer" },
        audit: member("viewer"),
      }),
    );
    await quiet(() => createShareLink(member("viewer"), { runId: "gen_nothing" }));
    // Refused inside the transaction, after its reads: rolled back whole.
    await quiet(() => setMemberRole(as("owner"), { userId: owner.id, role: "admin" }));
    await quiet(() => removeMember(as("owner"), { userId: owner.id }));
    await quiet(() => createInvitation(as("owner"), { email: owner.email, role: "viewer" }));
    // The balance's bound refuses the second grant inside its transaction.
    await grantCredit(s, { workspaceId: ws.id, amountMicros: 1_000_000_000 * 1_000_000, audit: CLI_AUDIT });
    await quiet(() => grantCredit(s, { workspaceId: ws.id, amountMicros: 1, audit: CLI_AUDIT }));
    await quiet(() => removeUser(s, { email: owner.email, audit: CLI_AUDIT }));
    const used = await createInvitation(as("owner"), { email: `once-${tag}@example.com`, role: "viewer" });
    await acceptInvitation(s.db, { token: used.token, newUser: { name: "Once", password: "long enough" } });
    await quiet(() =>
      acceptInvitation(s.db, { token: used.token, newUser: { name: "Twice", password: "long enough" } }),
    );

    // The event and its change commit together or not at all.
    await written(
      { workspaceId: ws.id },
      () =>
        withTransaction(s.db, async (trx) => {
          await trx.updateTable("workspaces").set({ name: "renamed" }).where("id", "=", ws.id).execute();
          await recordAudit(trx, CLI_AUDIT, {
            workspaceId: ws.id,
            action: "workspace.created",
            target: { type: "workspace", id: ws.id },
          });
          throw new Error("the change failed after its event");
        }).catch((err: Error) => err.message),
      0,
    );
    expect(
      (await s.db.selectFrom("workspaces").select("name").where("id", "=", ws.id).executeTakeFirstOrThrow()).name,
    ).not.toBe("renamed");
  });

  it("is written only inside a transaction, and never with a field named like a secret", async () => {
    const { ws } = await team();
    const record = {
      workspaceId: ws.id,
      action: "credit.granted" as const,
      target: { type: "workspace" as const, id: ws.id },
    };
    await expect(recordAudit(s.db, CLI_AUDIT, record)).rejects.toThrow(/inside the transaction/);
    const secrets: AuditChanges[] = [
      { secret: "x" },
      { new_password: "x" },
      { nested: { api_token: "x" } },
      { key_hash: "x" },
    ];
    for (const changes of secrets)
      await expect(withTransaction(s.db, (trx) => recordAudit(trx, CLI_AUDIT, { ...record, changes }))).rejects.toThrow(
        /secret/,
      );
    await expect(
      withTransaction(s.db, (trx) => recordAudit(trx, { actor: { kind: "system", id: "engine" } }, record)),
    ).rejects.toThrow(/a user, a key or the CLI/);
    expect(await eventsWhere({ workspaceId: ws.id, targetId: ws.id })).toHaveLength(1); // workspace.created only
  });
});
