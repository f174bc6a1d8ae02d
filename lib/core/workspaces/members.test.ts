import { sql } from "kysely";
import { refusal } from "../testing/refusal";
import { afterAll, describe, expect, it } from "vitest";
import { openTestStore, testCtx, testDialect, useTestStore, type TestStore } from "../../store/testing/test-store";
import { migrateStore } from "../../store/store";
import { scopesOfRole, type Ctx } from "../context";
import { authenticateApiKey, createApiKey, revokeApiKey } from "../keys/api-keys";
import { createWebhookEndpoint } from "../webhooks/webhook-endpoints";
import { createGeneration } from "../runs/generations";
import { createUser, removeUser } from "./users";
import { addMember, listMembers, listUserWorkspaces, removeMember, setMemberRole, type MembersCtx } from "./members";
import { readStudioSession, startStudioSession, switchSessionWorkspace } from "./studio-sessions";
import { createWorkspace } from "./workspaces";
import { MEMBER_ROLES, type MemberRole } from "./roles";
import { CLI_AUDIT } from "../audit/audit-writer";

describe(`members and roles (${testDialect()})`, () => {
  const s = useTestStore();
  const cli = (workspaceId: string): MembersCtx => ({ db: s.db, workspaceId, actor: { kind: "cli", id: "test" } });
  const as = (workspaceId: string, role: MemberRole, userId = "usr_someone"): MembersCtx => ({
    db: s.db,
    workspaceId,
    actor: { kind: "user", id: userId },
    role,
  });
  let n = 0;
  async function team() {
    const ws = await createWorkspace({ db: s.db }, { name: `team ${++n}` });
    const people = {} as Record<MemberRole, { id: string; email: string }>;
    for (const role of MEMBER_ROLES) {
      const email = `${role}-${n}@example.com`;
      const user = await createUser({ db: s.db }, { email, password: "long enough", workspaceId: ws.id, role });
      people[role] = { id: user.id, email };
    }
    return { ws, people };
  }

  it("each role may change just what it is allowed to, and a workspace keeps an owner", async () => {
    const { ws, people } = await team();
    // Viewers and creators manage no one; they do not even see the list.
    for (const role of ["viewer", "creator"] as const) {
      const ctx = as(ws.id, role);
      expect((await refusal(listMembers(ctx))).code).toBe("permission_denied");
      const denied = await refusal(setMemberRole(ctx, { email: people.viewer.email, role: "creator" }));
      expect(denied).toMatchObject({ code: "permission_denied" });
      expect(denied.message).toContain(`a ${role} in this workspace`);
    }
    // An admin manages members below owner, never owners, and makes no owner.
    const admin = as(ws.id, "admin", people.admin.id);
    expect((await listMembers(admin)).map((m) => m.role)).toEqual(["owner", "admin", "creator", "viewer"]);
    expect(await setMemberRole(admin, { email: people.viewer.email, role: "creator" })).toMatchObject({
      role: "creator",
    });
    expect((await refusal(setMemberRole(admin, { email: people.viewer.email, role: "owner" }))).message).toContain(
      "takes owner",
    );
    expect((await refusal(setMemberRole(admin, { email: people.owner.email, role: "admin" }))).code).toBe(
      "permission_denied",
    );
    expect((await refusal(removeMember(admin, { email: people.owner.email }))).code).toBe("permission_denied");
    // The last owner can neither step down nor be removed, by an owner or the CLI.
    const owner = as(ws.id, "owner", people.owner.id);
    expect((await refusal(setMemberRole(owner, { userId: people.owner.id, role: "admin" }))).code).toBe("conflict");
    expect((await refusal(removeMember(cli(ws.id), { email: people.owner.email }))).code).toBe("conflict");
    expect((await refusal(removeUser({ db: s.db }, { email: people.owner.email, audit: CLI_AUDIT }))).code).toBe(
      "conflict",
    );
    // With a second owner, the first may step down.
    await setMemberRole(owner, { email: people.admin.email, role: "owner" });
    expect(await setMemberRole(owner, { userId: people.owner.id, role: "admin" })).toMatchObject({ role: "admin" });
  });

  it("another workspace's members are not found, and bad input is a 400 naming the field", async () => {
    const a = await team();
    const b = await team();
    const adminOfA = as(a.ws.id, "owner", a.people.owner.id);
    for (const who of [{ email: b.people.viewer.email }, { userId: b.people.viewer.id }]) {
      expect((await refusal(setMemberRole(adminOfA, { ...who, role: "creator" }))).code).toBe("resource_not_found");
      expect((await refusal(removeMember(adminOfA, who))).code).toBe("resource_not_found");
    }
    expect((await listMembers(adminOfA)).map((m) => m.email)).not.toContain(b.people.viewer.email);
    for (const email of ["", "\u0000", "x".repeat(10_000), "constructor", "a@b\u0000.c"]) {
      expect((await refusal(removeMember(adminOfA, { email }))).code).toBe("resource_not_found");
    }
    for (const userId of ["", "constructor", "__proto__", "usr_\u0000", "usr_" + "x".repeat(5000)]) {
      expect((await refusal(removeMember(adminOfA, { userId }))).code).toBe("resource_not_found");
    }
    for (const role of ["ops", "constructor", "__proto__", "", "owner\u0000", { a: 1 }, null, "x".repeat(5000)]) {
      expect(await refusal(setMemberRole(adminOfA, { email: a.people.viewer.email, role }))).toMatchObject({
        code: "invalid_parameter",
        param: "role",
      });
    }
    expect(await refusal(addMember(adminOfA, { email: "nobody@example.com", role: "viewer" }))).toMatchObject({
      code: "resource_not_found",
      param: "email",
    });
    expect(await refusal(addMember(adminOfA, { email: a.people.viewer.email, role: "viewer" }))).toMatchObject({
      code: "conflict",
    });
  });

  it("a user in two workspaces switches the session between them, and a third is not theirs", async () => {
    const a = await team();
    const b = await team();
    await addMember(cli(b.ws.id), { email: a.people.creator.email, role: "viewer" });
    expect((await listUserWorkspaces(s.db, a.people.creator.id)).map((w) => [w.id, w.role]).sort()).toEqual(
      [
        [a.ws.id, "creator"],
        [b.ws.id, "viewer"],
      ].sort(),
    );
    const session = await startStudioSession({ db: s.db }, a.people.creator.id);
    expect(await readStudioSession({ db: s.db }, session.id)).toMatchObject({ workspaceId: a.ws.id, role: "creator" });
    await switchSessionWorkspace(
      { db: s.db },
      { sessionId: session.id, userId: a.people.creator.id, workspaceId: b.ws.id },
    );
    expect(await readStudioSession({ db: s.db }, session.id)).toMatchObject({ workspaceId: b.ws.id, role: "viewer" });
    // The next sign-in opens where they were last.
    const next = await startStudioSession({ db: s.db }, a.people.creator.id);
    expect((await readStudioSession({ db: s.db }, next.id))?.workspaceId).toBe(b.ws.id);
    const c = await team();
    for (const workspaceId of [c.ws.id, "ws_nope", "constructor", "", "ws_\u0000", 12]) {
      expect(
        (
          await refusal(
            switchSessionWorkspace({ db: s.db }, { sessionId: session.id, userId: a.people.creator.id, workspaceId }),
          )
        ).code,
      ).toBe("resource_not_found");
    }
    // Removed from the workspace the session is in: that session has ended.
    await removeMember(cli(b.ws.id), { email: a.people.creator.email });
    expect(await readStudioSession({ db: s.db }, session.id)).toBeNull();
  });

  it("a viewer cannot spend; a key acts with at most its maker's role now, and dies with their membership", async () => {
    const { ws, people } = await team();
    const base = testCtx(s.t, ws.id);
    const viewer: Ctx = {
      ...base,
      actor: { kind: "user", id: people.viewer.id },
      role: "viewer",
      scopes: scopesOfRole("viewer"),
    };
    const refused = await refusal(createGeneration(viewer, { model: "atelier/gradient", input: {} }));
    expect(refused.code).toBe("permission_denied");
    expect(refused.message).toContain("You are a viewer");

    // Keys: a viewer makes none; a creator only when the workspace allows; an admin always.
    const make = (role: MemberRole, userId: string) =>
      createApiKey({ db: s.db }, { workspaceId: ws.id, prefix: "sk_test", maker: { userId, role } });
    expect((await refusal(make("viewer", people.viewer.id))).code).toBe("permission_denied");
    expect((await refusal(make("creator", people.creator.id))).message).toContain("Members page");
    await s.db.updateTable("workspaces").set({ creator_keys: 1 }).where("id", "=", ws.id).execute();
    const creatorKey = await make("creator", people.creator.id);
    const adminKey = await make("admin", people.admin.id);
    expect(adminKey.created_by).toBe(people.admin.id);
    // A creator revokes their own keys only.
    expect(
      (
        await refusal(
          revokeApiKey(
            { db: s.db },
            {
              keyId: adminKey.id,
              workspaceId: ws.id,
              maker: { userId: people.creator.id, role: "creator" },
              audit: CLI_AUDIT,
            },
          ),
        )
      ).code,
    ).toBe("permission_denied");

    const auth = (key: string) =>
      authenticateApiKey({ db: s.db }, { xApiKey: key, authorization: undefined }, "sk_test");
    expect(await auth(creatorKey.key)).toMatchObject({
      role: "creator",
      scopes: expect.arrayContaining(["generations:write"]),
    });
    // Demoted to viewer: the key keeps reading, and cannot spend.
    await setMemberRole(cli(ws.id), { email: people.creator.email, role: "viewer" });
    const demoted = await auth(creatorKey.key);
    expect(demoted).toMatchObject({ role: "viewer" });
    expect(demoted.scopes).not.toContain("generations:write");
    const keyCtx: Ctx = {
      ...base,
      actor: { kind: "api_key", id: demoted.keyId },
      scopes: demoted.scopes,
      role: "viewer",
    };
    expect((await refusal(createGeneration(keyCtx, { model: "atelier/gradient", input: {} }))).message).toContain(
      "The member who made this API key is a viewer",
    );
    // An admin's key may manage webhooks; a creator's may not, whatever its scopes.
    await setMemberRole(cli(ws.id), { email: people.viewer.email, role: "creator" });
    const creatorCtx: Ctx = { ...base, role: "creator" };
    expect((await refusal(createWebhookEndpoint(creatorCtx, { url: "https://example.com/hook" }))).message).toContain(
      "takes admin or owner",
    );
    // Removed: the keys they made are revoked with the membership.
    const { revokedKeys } = await removeMember(cli(ws.id), { email: people.creator.email });
    expect(revokedKeys).toEqual([creatorKey.id]);
    expect((await refusal(auth(creatorKey.key))).code).toBe("invalid_api_key");
    expect(await auth(adminKey.key)).toMatchObject({ role: "admin" });
  });
});

describe(`upgrading to memberships (${testDialect()})`, () => {
  let older: TestStore;
  afterAll(async () => {
    await older?.cleanup();
  });

  it("today's creators stay creators (and keep making keys), ops become owners who operate the install, open sessions live on", async () => {
    older = await openTestStore({ olderSchema: "020-output-retention" });
    const db = older.store.db;
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 86_400_000).toISOString();
    await sql`insert into workspaces (id, name, created_at) values ('ws_old1', 'old one', ${now}), ('ws_old2', 'old two', ${now})`.execute(
      db,
    );
    await sql`insert into users (id, email, password_hash, workspace_id, role, created_at) values
      ('usr_oldcreator', 'creator@old.example', 'scrypt$x', 'ws_old1', 'creator', ${now}),
      ('usr_oldops', 'ops@old.example', 'scrypt$x', 'ws_old2', 'ops', ${now})`.execute(db);
    const sessionId = "s".repeat(43);
    await sql`insert into studio_sessions (id, user_id, created_at, expires_at) values (${sessionId}, 'usr_oldcreator', ${now}, ${later})`.execute(
      db,
    );
    await sql`insert into api_keys (id, workspace_id, name, key_hash, key_hint, scopes, created_at) values
      ('key_old', 'ws_old1', 'old key', 'abc', 'sk_…abcd', 'generations:read', ${now})`.execute(db);

    await migrateStore(older.store);

    const memberships = await db
      .selectFrom("memberships")
      .select(["workspace_id", "user_id", "role"])
      .orderBy("user_id")
      .execute();
    expect(memberships).toEqual([
      { workspace_id: "ws_old1", user_id: "usr_oldcreator", role: "creator" },
      { workspace_id: "ws_old2", user_id: "usr_oldops", role: "owner" },
    ]);
    const users = await db.selectFrom("users").select(["id", "is_ops"]).orderBy("id").execute();
    expect(users.map((u) => [u.id, Number(u.is_ops)])).toEqual([
      ["usr_oldcreator", 0],
      ["usr_oldops", 1],
    ]);
    expect(await readStudioSession({ db }, sessionId)).toMatchObject({
      id: "usr_oldcreator",
      workspaceId: "ws_old1",
      role: "creator",
      isOps: false,
    });
    const key = await db
      .selectFrom("api_keys")
      .select(["created_by"])
      .where("id", "=", "key_old")
      .executeTakeFirstOrThrow();
    expect(key.created_by).toBeNull();
    expect(
      (await db.selectFrom("workspaces").select("creator_keys").where("id", "=", "ws_old1").executeTakeFirstOrThrow())
        .creator_keys,
    ).toBe(1);
  });
});
