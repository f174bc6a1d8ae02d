import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../store/database";
import { openTestStore, testDialect, type TestStore } from "../../store/testing/test-store";
import { createRunSignals } from "../../engine/run-signals";
import {
  createStudioSessionCache,
  endStudioSession,
  readStudioSession,
  startStudioSession,
  STUDIO_SESSION_DAYS,
  studioSessionUser,
} from "./studio-sessions";
import { createUser, removeUser, setUserOps, setUserPassword, verifyUserPassword } from "./users";
import { setMemberRole } from "./members";
import { createWorkspace } from "./workspaces";
import { CLI_AUDIT } from "../audit/audit-writer";

describe(`studio sessions (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function newUser(email: string, role = "creator", ops = false) {
    const ws = await createWorkspace({ db }, { name: `sessions ${email}` });
    return createUser({ db }, { email, password: "long enough", workspaceId: ws.id, role, ops });
  }
  const cli = (workspaceId: string) => ({ db, workspaceId, actor: { kind: "cli" as const, id: "test" } });

  it("reads the user from the store, and sign-out ends only that session", async () => {
    const user = await newUser("one@example.com", "owner", true);
    const a = await startStudioSession({ db }, user.id);
    const b = await startStudioSession({ db }, user.id);
    expect(a.id).not.toBe(b.id);
    expect(await readStudioSession({ db }, a.id)).toMatchObject({
      id: user.id,
      email: user.email,
      role: "owner",
      isOps: true,
      workspaceId: user.workspace_id,
    });
    expect(await endStudioSession({ db }, a.id)).toBe(user.id);
    expect(await readStudioSession({ db }, a.id)).toBeNull();
    expect(await endStudioSession({ db }, a.id)).toBeNull();
    expect(await readStudioSession({ db }, b.id)).not.toBeNull();
  });

  it("a session expires a fixed time after sign-in, however active", async () => {
    const user = await newUser("expiry@example.com");
    const start = new Date("2026-01-01T00:00:00Z");
    const session = await startStudioSession({ db }, user.id, start);
    expect(session.expiresAt).toBe(new Date(start.getTime() + STUDIO_SESSION_DAYS * 86_400_000).toISOString());
    expect(await readStudioSession({ db }, session.id, new Date(start.getTime() + 1000))).not.toBeNull();
    expect(await readStudioSession({ db }, session.id, new Date(session.expiresAt))).toBeNull();
  });

  it("a password change, a role change, the ops flag and a removed user end every session of that user", async () => {
    const user = await newUser("change@example.com");
    const other = await newUser("bystander@example.com");
    const kept = await startStudioSession({ db }, other.id);

    const first = await startStudioSession({ db }, user.id);
    await setUserPassword({ db }, { email: user.email, password: "another long one", audit: CLI_AUDIT });
    expect(await readStudioSession({ db }, first.id)).toBeNull();

    const second = await startStudioSession({ db }, user.id);
    expect((await readStudioSession({ db }, second.id))?.role).toBe("creator");
    await setMemberRole(cli(user.workspace_id), { email: user.email, role: "viewer" });
    expect(await readStudioSession({ db }, second.id)).toBeNull();
    const third = await startStudioSession({ db }, user.id);
    expect(await readStudioSession({ db }, third.id)).toMatchObject({ role: "viewer", isOps: false });
    await setUserOps({ db }, { email: user.email, ops: true, audit: CLI_AUDIT });
    expect(await readStudioSession({ db }, third.id)).toBeNull();
    const fourth = await startStudioSession({ db }, user.id);
    expect(await readStudioSession({ db }, fourth.id)).toMatchObject({ role: "viewer", isOps: true });

    await removeUser({ db }, { email: user.email, audit: CLI_AUDIT });
    expect(await readStudioSession({ db }, fourth.id)).toBeNull();
    expect(await readStudioSession({ db }, kept.id)).not.toBeNull();
  });

  it("refuses a role that is not one, prototype keys included, and unknown emails", async () => {
    const user = await newUser("roles@example.com");
    for (const role of ["ops", "constructor", "__proto__", "toString", "", "owner\u0000", 3, null]) {
      await expect(setMemberRole(cli(user.workspace_id), { email: user.email, role })).rejects.toMatchObject({
        code: "invalid_parameter",
        param: "role",
      });
    }
    await expect(
      setMemberRole(cli(user.workspace_id), { email: "nobody@example.com", role: "admin" }),
    ).rejects.toMatchObject({
      code: "resource_not_found",
    });
    await expect(removeUser({ db }, { email: "nobody@example.com", audit: CLI_AUDIT })).rejects.toMatchObject({
      code: "resource_not_found",
    });
    // What a sign-in form or the CLI may send: no store error, the same "no such user".
    for (const email of ["roles@example.com\u0000", "\u0000", "a".repeat(10_000), "constructor"]) {
      await expect(setMemberRole(cli(user.workspace_id), { email, role: "admin" })).rejects.toMatchObject({
        code: "resource_not_found",
      });
      expect(await verifyUserPassword({ db }, { email, password: "long enough" })).toBeNull();
    }
  });

  it("odd session IDs read as no session", async () => {
    for (const id of ["", "x".repeat(5000), "constructor", "__proto__", "a\u0000b"]) {
      expect(await readStudioSession({ db }, id)).toBeNull();
    }
  });

  it("the cache answers repeated reads, and a sessions_ended signal makes it forget that user", async () => {
    const user = await newUser("cache@example.com");
    const session = await startStudioSession({ db }, user.id);
    const cache = createStudioSessionCache();
    const signals = createRunSignals();
    signals.onSessionsEnded((userId) => cache.forgetUser(userId));
    expect(await studioSessionUser({ db }, cache, session.id)).toMatchObject({ id: user.id });
    await endStudioSession({ db }, session.id);
    // Cached: still answered until the signal says otherwise.
    expect(await studioSessionUser({ db }, cache, session.id)).toMatchObject({ id: user.id });
    await signals.sessionsEnded(user.id);
    expect(await studioSessionUser({ db }, cache, session.id)).toBeNull();
  });

  it("a cached entry lives a short while at most", () => {
    const cache = createStudioSessionCache({ ttlMs: 1000 });
    const user = {
      id: "usr_x",
      email: "x@example.com",
      role: "creator" as const,
      isOps: false,
      workspaceId: "ws_x",
      expiresAt: "2999-01-01T00:00:00.000Z",
    };
    cache.set("s", user, 0);
    expect(cache.get("s", 999)).toEqual(user);
    expect(cache.get("s", 1001)).toBeUndefined();
    cache.set("s", user, 0);
    cache.forgetUser("*");
    expect(cache.get("s", 1)).toBeUndefined();
  });
});
