import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../store/database";
import { openTestStore, testDialect, type TestStore } from "../../store/testing/test-store";
import {
  createUser,
  findUser,
  findUserByEmail,
  generatePassword,
  listUsers,
  setUserPassword,
  verifyUserPassword,
} from "./users";
import { createWorkspace } from "./workspaces";
import { CLI_AUDIT } from "../audit/audit-writer";

describe(`users (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("creates a user with a salted scrypt hash and checks passwords", async () => {
    const ws = await createWorkspace({ db }, { name: "users" });
    const user = await createUser(
      { db },
      { email: " Ada@Example.COM ", password: "correct horse", workspaceId: ws.id, role: "creator" },
    );
    expect(user).toMatchObject({
      object: "user",
      email: "ada@example.com",
      workspace_id: ws.id,
      ops: false,
      memberships: [{ workspace_id: ws.id, role: "creator" }],
    });
    expect(user.id).toMatch(/^usr_[0-9A-Za-z]{24}$/);
    const row = await db.selectFrom("users").selectAll().where("id", "=", user.id).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$16384\$/);
    expect(row.password_hash).not.toContain("correct horse");
    expect(await verifyUserPassword({ db }, { email: "ADA@example.com", password: "correct horse" })).toEqual(user);
    expect(await verifyUserPassword({ db }, { email: "ada@example.com", password: "wrong horse" })).toBeNull();
    expect(await verifyUserPassword({ db }, { email: "nobody@example.com", password: "correct horse" })).toBeNull();
    expect(await findUser({ db }, user.id)).toEqual(user);
    expect(await findUserByEmail({ db }, "ADA@example.com ")).toEqual(user);
    expect(await findUserByEmail({ db }, "nobody@example.com")).toBeNull();
  });

  it("refuses bad input and a second user with the same email", async () => {
    const ws = await createWorkspace({ db }, { name: "users 2" });
    const base = { email: "b@example.com", password: "long enough", workspaceId: ws.id, role: "owner", ops: true };
    await createUser({ db }, base);
    for (const [input, param] of [
      [{ ...base }, "email"],
      [{ ...base, email: "not-an-email" }, "email"],
      [{ ...base, email: "c@example.com", password: "short" }, "password"],
      [{ ...base, email: "c@example.com", role: "ops" }, "role"],
      [{ ...base, email: "c@example.com", role: "constructor" }, "role"],
      [{ ...base, email: "c@example.com", role: "owner\u0000" }, "role"],
      [{ ...base, email: "c@example.com", role: 7 }, "role"],
      [{ ...base, email: "c\u0000@example.com" }, "email"],
      [{ ...base, email: `${"c".repeat(300)}@example.com` }, "email"],
      [{ ...base, email: "c@example.com", workspaceId: "ws_missing" }, "workspace"],
    ] as const) {
      await expect(createUser({ db }, input)).rejects.toMatchObject({ code: "invalid_parameter", param });
    }
  });

  it("sets a lost password: the old one stops working, the new one signs in", async () => {
    const ws = await createWorkspace({ db }, { name: "users 3" });
    const user = await createUser(
      { db },
      { email: "lost@example.com", password: "forgotten one", workspaceId: ws.id, role: "owner", ops: true },
    );
    const fresh = generatePassword();
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(await setUserPassword({ db }, { email: " LOST@example.com", password: fresh, audit: CLI_AUDIT })).toEqual(
      user,
    );
    expect(await verifyUserPassword({ db }, { email: "lost@example.com", password: "forgotten one" })).toBeNull();
    expect(await verifyUserPassword({ db }, { email: "lost@example.com", password: fresh })).toEqual(user);
    await expect(
      setUserPassword({ db }, { email: "lost@example.com", password: "short", audit: CLI_AUDIT }),
    ).rejects.toMatchObject({
      code: "invalid_parameter",
      param: "password",
    });
    await expect(
      setUserPassword({ db }, { email: "nobody@example.com", password: "long enough", audit: CLI_AUDIT }),
    ).rejects.toMatchObject({
      code: "resource_not_found",
      param: "email",
    });
    expect((await listUsers({ db })).map((u) => u.email)).toContain("lost@example.com");
  });
});
