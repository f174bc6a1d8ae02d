import { describe, expect, it } from "vitest";
import { testDialect, useTestStore } from "../../store/testing/test-store";
import { createInvitation, readInvitation } from "./invitations";
import { listUserWorkspaces, removeMember, type MembersCtx } from "./members";
import { signInWithIdentity, SsoRefused, type IdentityPolicy } from "./single-sign-on";
import { createUser, findUserByEmail } from "./users";
import { createWorkspace } from "./workspaces";

const INVITES_ONLY: IdentityPolicy = { allowedDomains: [], join: null };

async function refusedWith(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SsoRefused) return err.reason;
    throw err;
  }
  throw new Error("not refused");
}

describe(`single sign-on (${testDialect()})`, () => {
  const s = useTestStore();
  let n = 0;
  async function workspace() {
    n += 1;
    const ws = await createWorkspace({ db: s.db }, { name: `sso ${n}` });
    const owner = await createUser(
      { db: s.db },
      { email: `sso-owner-${n}@example.com`, password: "long enough", workspaceId: ws.id, role: "owner" },
    );
    const asOwner: MembersCtx = { db: s.db, workspaceId: ws.id, actor: { kind: "user", id: owner.id }, role: "owner" };
    return { ws, owner, asOwner };
  }
  const auditOf = (userId: string) =>
    s.db.selectFrom("audit_events").selectAll().where("target_id", "=", userId).orderBy("id").execute();

  it("an existing member signs in as themself; an unverified or missing email is refused, whatever the account", async () => {
    const { owner } = await workspace();
    expect(
      await signInWithIdentity(s.db, { email: owner.email.toUpperCase(), email_verified: true }, INVITES_ONLY),
    ).toEqual({
      userId: owner.id,
    });
    for (const verified of [false, "true", 1, undefined, null, { constructor: true }])
      expect(
        await refusedWith(signInWithIdentity(s.db, { email: owner.email, email_verified: verified }, INVITES_ONLY)),
      ).toBe("email_unverified");
    for (const email of [
      undefined,
      "",
      "no-at-sign",
      "a\u0000@example.com",
      "x".repeat(400) + "@example.com",
      ["a@b.co"],
    ])
      expect(await refusedWith(signInWithIdentity(s.db, { email, email_verified: true }, INVITES_ONLY))).toBe(
        "no_email",
      );
  });

  it("invitation-only: a stranger is refused; an invited person becomes a user and joins every inviting workspace once", async () => {
    const a = await workspace();
    const b = await workspace();
    const email = `invited-${n}@example.com`;
    expect(await refusedWith(signInWithIdentity(s.db, { email, email_verified: true }, INVITES_ONLY))).toBe(
      "not_invited",
    );
    expect(await findUserByEmail({ db: s.db }, email)).toBeNull();

    const toA = await createInvitation(a.asOwner, { email, role: "creator" });
    await createInvitation(b.asOwner, { email, role: "viewer" });
    const { userId } = await signInWithIdentity(
      s.db,
      { email, email_verified: true, name: "Grace\u0000 Hopper" },
      INVITES_ONLY,
      { ip: "203.0.113.9" },
    );
    const joined = await listUserWorkspaces(s.db, userId);
    expect(joined.map((w) => [w.id, w.role]).sort()).toEqual(
      [
        [a.ws.id, "creator"],
        [b.ws.id, "viewer"],
      ].sort(),
    );
    const user = await s.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    expect(user.name).toBe("Grace Hopper");
    // The links are used up, like an accepted one.
    await expect(readInvitation(s.db, toA.token)).rejects.toMatchObject({ code: "gone" });
    const events = await auditOf(userId);
    expect(events.map((e) => [e.action, e.workspace_id, e.actor_type, e.actor_id, e.ip])).toEqual(
      expect.arrayContaining([
        ["member.joined", a.ws.id, "user", userId, "203.0.113.9"],
        ["member.joined", b.ws.id, "user", userId, "203.0.113.9"],
      ]),
    );
    expect(events).toHaveLength(2);
    // Signing in again changes nothing.
    expect(await signInWithIdentity(s.db, { email, email_verified: true }, INVITES_ONLY)).toEqual({ userId });
    expect(await auditOf(userId)).toHaveLength(2);
  });

  it("a user removed from every workspace is refused until invited again", async () => {
    const a = await workspace();
    const email = `leaver-${n}@example.com`;
    const user = await createUser(
      { db: s.db },
      { email, password: "long enough", workspaceId: a.ws.id, role: "creator" },
    );
    await removeMember(a.asOwner, { userId: user.id });
    expect(await refusedWith(signInWithIdentity(s.db, { email, email_verified: true }, INVITES_ONLY))).toBe(
      "not_invited",
    );
    await createInvitation(a.asOwner, { email, role: "viewer" });
    expect(await signInWithIdentity(s.db, { email, email_verified: true }, INVITES_ONLY)).toEqual({ userId: user.id });
    expect((await listUserWorkspaces(s.db, user.id)).map((w) => w.role)).toEqual(["viewer"]);
  });

  it("allowed domains open an account in the configured workspace and role, for verified emails of those domains only", async () => {
    const a = await workspace();
    const policy: IdentityPolicy = {
      allowedDomains: ["acme.example"],
      join: { workspaceId: a.ws.id, role: "creator" },
    };
    const email = `new-${n}@ACME.example`;
    const { userId } = await signInWithIdentity(s.db, { email, email_verified: true }, policy);
    expect(await listUserWorkspaces(s.db, userId)).toMatchObject([{ id: a.ws.id, role: "creator" }]);
    expect((await auditOf(userId)).map((e) => e.action)).toEqual(["member.joined"]);
    // A subdomain, a look-alike, or an unverified address of the domain: refused.
    for (const other of [`x-${n}@sub.acme.example`, `x-${n}@acme.example.evil`, `x-${n}@notacme.example`])
      expect(await refusedWith(signInWithIdentity(s.db, { email: other, email_verified: true }, policy))).toBe(
        "not_invited",
      );
    expect(
      await refusedWith(signInWithIdentity(s.db, { email: `u-${n}@acme.example`, email_verified: false }, policy)),
    ).toBe("email_unverified");
    const gone: IdentityPolicy = {
      allowedDomains: ["acme.example"],
      join: { workspaceId: "ws_missing", role: "viewer" },
    };
    expect(
      await refusedWith(signInWithIdentity(s.db, { email: `v-${n}@acme.example`, email_verified: true }, gone)),
    ).toBe("join_workspace_missing");
  });

  it("two first sign-ins of one person at once make one account", async () => {
    const a = await workspace();
    const policy: IdentityPolicy = {
      allowedDomains: ["twins.example"],
      join: { workspaceId: a.ws.id, role: "viewer" },
    };
    const email = `twin-${n}@twins.example`;
    const [one, two] = await Promise.all([
      signInWithIdentity(s.db, { email, email_verified: true }, policy),
      signInWithIdentity(s.db, { email, email_verified: true }, policy),
    ]);
    expect(one.userId).toBe(two.userId);
    expect(await s.db.selectFrom("users").select("id").where("email", "=", email).execute()).toHaveLength(1);
  });
});
