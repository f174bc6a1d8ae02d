import { refusal } from "../testing/refusal";
import { describe, expect, it } from "vitest";
import { testDialect, useTestStore } from "../../store/testing/test-store";
import { acceptInvitation, createInvitation, listInvitations, readInvitation, revokeInvitation } from "./invitations";
import { listUserWorkspaces, type MembersCtx } from "./members";
import { createUser, verifyUserPassword } from "./users";
import { createWorkspace } from "./workspaces";
import type { MemberRole } from "./roles";

describe(`invitations (${testDialect()})`, () => {
  const s = useTestStore();
  let n = 0;
  async function workspace() {
    const ws = await createWorkspace({ db: s.db }, { name: `invites ${++n}` });
    const owner = await createUser(
      { db: s.db },
      { email: `owner-${n}@example.com`, password: "long enough", workspaceId: ws.id, role: "owner" },
    );
    const as = (role: MemberRole): MembersCtx => ({
      db: s.db,
      workspaceId: ws.id,
      actor: { kind: "user", id: owner.id },
      role,
    });
    return { ws, owner, as };
  }

  it("a new person accepts once with a name and password; the link is then dead, like a revoked or expired one", async () => {
    const { ws, as } = await workspace();
    const invite = await createInvitation(as("admin"), { email: " New.Person@Example.com ", role: "viewer" });
    expect(invite).toMatchObject({ object: "invitation", email: "new.person@example.com", role: "viewer" });
    expect(invite.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only its hash is stored.
    const stored = await s.db
      .selectFrom("invitations")
      .selectAll()
      .where("id", "=", invite.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(invite.token);
    expect((await listInvitations(as("admin"))).map((i) => i.id)).toEqual([invite.id]);
    expect(await readInvitation(s.db, invite.token)).toMatchObject({ workspaceId: ws.id, userExists: false });

    // Bad input names the field; nothing is used up.
    for (const [newUser, param] of [
      [{ name: "", password: "long enough" }, "name"],
      [{ name: "x".repeat(101), password: "long enough" }, "name"],
      [{ name: "Ada\u0000", password: "long enough" }, "name"],
      [{ name: "Ada", password: "short" }, "password"],
      [{ name: "Ada", password: "long enough\u0000" }, "password"],
      [{ name: { constructor: 1 }, password: "long enough" }, "name"],
      [{ name: "Ada", password: ["long enough"] }, "password"],
    ] as const) {
      expect(await refusal(acceptInvitation(s.db, { token: invite.token, newUser }))).toMatchObject({
        code: "invalid_parameter",
        param,
      });
    }
    const joined = await acceptInvitation(s.db, {
      token: invite.token,
      newUser: { name: "Ada", password: "long enough" },
    });
    expect(joined).toMatchObject({ workspaceId: ws.id, role: "viewer", email: "new.person@example.com" });
    expect(
      await verifyUserPassword({ db: s.db }, { email: "new.person@example.com", password: "long enough" }),
    ).toMatchObject({
      memberships: [{ workspace_id: ws.id, role: "viewer" }],
    });
    // Single use.
    const dead = await refusal(
      acceptInvitation(s.db, { token: invite.token, newUser: { name: "Eve", password: "long enough" } }),
    );
    expect(dead.code).toBe("gone");
    expect(await listInvitations(as("admin"))).toEqual([]);

    // Revoked and expired read the same as used and unknown.
    const revoked = await createInvitation(as("owner"), { email: "r@example.com", role: "creator" });
    await revokeInvitation(as("admin"), { id: revoked.id });
    const past = new Date(Date.now() - 8 * 86_400_000);
    const expired = await createInvitation(as("owner"), { email: "e@example.com", role: "creator" }, past);
    for (const token of [
      revoked.token,
      expired.token,
      "A".repeat(43),
      "",
      "constructor",
      "x\u0000",
      "a".repeat(5000),
      7,
    ]) {
      const refused = await refusal(readInvitation(s.db, token));
      expect(refused).toMatchObject({ code: "gone", message: dead.message });
    }
  });

  it("only the invited email may accept when signed in; an existing account signs in first", async () => {
    const { ws, as } = await workspace();
    const other = await workspace();
    const invite = await createInvitation(as("owner"), { email: other.owner.email, role: "admin" });
    expect((await readInvitation(s.db, invite.token)).userExists).toBe(true);
    expect(
      (await refusal(acceptInvitation(s.db, { token: invite.token, newUser: { name: "X", password: "long enough" } })))
        .code,
    ).toBe("conflict");
    const stranger = await workspace();
    const wrong = await refusal(
      acceptInvitation(s.db, {
        token: invite.token,
        signedIn: { userId: stranger.owner.id, email: stranger.owner.email },
      }),
    );
    expect(wrong).toMatchObject({ code: "permission_denied" });
    expect(wrong.message).toContain(other.owner.email);
    await acceptInvitation(s.db, {
      token: invite.token,
      signedIn: { userId: other.owner.id, email: other.owner.email },
    });
    expect((await listUserWorkspaces(s.db, other.owner.id)).map((w) => [w.id, w.role])).toContainEqual([
      ws.id,
      "admin",
    ]);
  });

  it("two people racing for one link: exactly one joins", async () => {
    const { as } = await workspace();
    const invite = await createInvitation(as("owner"), { email: "race@example.com", role: "creator" });
    const outcomes = await Promise.allSettled([
      acceptInvitation(s.db, { token: invite.token, newUser: { name: "A", password: "long enough" } }),
      acceptInvitation(s.db, { token: invite.token, newUser: { name: "B", password: "long enough" } }),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const users = await s.db.selectFrom("users").select("id").where("email", "=", "race@example.com").execute();
    expect(users).toHaveLength(1);
  });

  it("roles: creators and viewers invite no one, admins invite below owner; members and bad input refused", async () => {
    const { as, owner } = await workspace();
    const other = await workspace();
    for (const role of ["creator", "viewer"] as const) {
      expect((await refusal(createInvitation(as(role), { email: "a@example.com", role: "viewer" }))).code).toBe(
        "permission_denied",
      );
    }
    expect((await refusal(createInvitation(as("admin"), { email: "a@example.com", role: "owner" }))).message).toContain(
      "takes owner",
    );
    expect(await refusal(createInvitation(as("owner"), { email: owner.email, role: "viewer" }))).toMatchObject({
      code: "conflict",
      param: "email",
    });
    for (const email of ["", "no-at-sign", "a@b\u0000c", `${"x".repeat(300)}@example.com`, { toString: 1 }, null]) {
      expect(await refusal(createInvitation(as("owner"), { email, role: "viewer" }))).toMatchObject({
        code: "invalid_parameter",
        param: "email",
      });
    }
    for (const role of ["ops", "constructor", "__proto__", "", 1]) {
      expect(await refusal(createInvitation(as("owner"), { email: "a@example.com", role }))).toMatchObject({
        code: "invalid_parameter",
        param: "role",
      });
    }
    // Another workspace's invitation is not found from here.
    const theirs = await createInvitation(other.as("owner"), { email: "theirs@example.com", role: "viewer" });
    for (const id of [theirs.id, "inv_nope", "constructor", "", "inv_\u0000"]) {
      expect((await refusal(revokeInvitation(as("owner"), { id }))).code).toBe("resource_not_found");
    }
    expect((await listInvitations(as("owner"))).map((i) => i.email)).not.toContain("theirs@example.com");
    // An admin cannot revoke an owner's invitation, and it stays pending.
    const ownerInvite = await createInvitation(as("owner"), { email: "next-owner@example.com", role: "owner" });
    expect((await refusal(revokeInvitation(as("admin"), { id: ownerInvite.id }))).code).toBe("permission_denied");
    expect(await readInvitation(s.db, ownerInvite.token)).toMatchObject({ role: "owner" });
    // A new invitation for the same email replaces the pending one.
    const first = await createInvitation(as("owner"), { email: "twice@example.com", role: "viewer" });
    const second = await createInvitation(as("owner"), { email: "twice@example.com", role: "creator" });
    expect(
      (await listInvitations(as("owner"))).filter((i) => i.email === "twice@example.com").map((i) => i.id),
    ).toEqual([second.id]);
    expect((await refusal(readInvitation(s.db, first.token))).code).toBe("gone");
  });
});
