// A revoked API key stops working at once in every process that keeps live keys in memory
// (api-key-cache.ts): two "processes" (their own store connections, signal bridges and caches)
// on one store, on both dialects; the revocation announced by a process without a bridge (the
// admin CLI: NOTIFY, or a line to each process of the SQLite mesh) and by one with a bridge.
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiKeyCache, type ApiKeyCache } from "../core/keys/api-key-cache";
import { authenticateApiKey, createApiKey, revokeApiKey } from "../core/keys/api-keys";
import { ApiError } from "../primitives/errors";
import { createWorkspace } from "../core/workspaces/workspaces";
import {
  createStudioSessionCache,
  endStudioSession,
  startStudioSession,
  studioSessionUser,
  type StudioSessionCache,
} from "../core/workspaces/studio-sessions";
import { createUser, setUserPassword } from "../core/workspaces/users";
import { sqliteFileIn, type Store } from "../store/store";
import { openSameStore, openTestStore, testDialect, type TestStore } from "../store/testing/test-store";
import { announceToEveryProcess, connectCrossProcessSignals } from "./cross-process";
import { createRunSignals, type RunSignals } from "./run-signals";
import { CLI_AUDIT } from "../core/audit/audit-writer";

const silent = pino({ level: "silent" });
/** Longer than any test: only a signal can forget a key in time. */
const FOREVER_MS = 600_000;

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Process {
  store: Store;
  signals: RunSignals;
  cache: ApiKeyCache;
  sessions: StudioSessionCache;
}

describe(`API key revocations across processes (${testDialect()})`, () => {
  let t: TestStore;
  let elsewhere: Store;
  let sqliteFile: string | null;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    t = await openTestStore();
    elsewhere = openSameStore(t);
    sqliteFile = t.postgres ? null : sqliteFileIn(t.dataDir);
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    await elsewhere?.close();
    await t?.cleanup();
  });

  async function process(store: Store): Promise<Process> {
    const signals = createRunSignals();
    const cache = createApiKeyCache();
    signals.onKeyRevoked((keyId) => cache.forget(keyId));
    const sessions = createStudioSessionCache({ ttlMs: FOREVER_MS });
    signals.onSessionsEnded((userId) => sessions.forgetUser(userId));
    // The fallback polls sleep: only the bridge can carry the revocation.
    const bridge = await connectCrossProcessSignals(store, t.postgres?.databaseUrl ?? null, signals, silent, {
      pollMs: FOREVER_MS,
      ...(sqliteFile ? { sqliteFile } : {}),
    });
    closers.push(() => bridge.close());
    return { store, signals, cache, sessions };
  }

  const authenticate = (p: Process, key: string) =>
    authenticateApiKey({ db: p.store.db }, { xApiKey: key, authorization: undefined }, "atl", p.cache);

  async function refused(p: Process, key: string): Promise<string> {
    const err = await authenticate(p, key).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return (err as ApiError).message;
  }

  async function liveKey(): Promise<{ id: string; key: string }> {
    const workspace = await createWorkspace({ db: t.store.db }, { name: "revocations" });
    return createApiKey({ db: t.store.db }, { workspaceId: workspace.id, prefix: "atl" });
  }

  it("a cached key is answered without the store; the admin CLI's announcement makes every process refuse it", async () => {
    const here = await process(t.store);
    const there = await process(elsewhere);
    const { id, key } = await liveKey();
    expect((await authenticate(here, key)).keyId).toBe(id);
    expect((await authenticate(there, key)).keyId).toBe(id);

    // Revoked in the store behind the caches' backs: both still answer from memory, so neither asked the store.
    await t.store.db
      .updateTable("api_keys")
      .set({ revoked_at: new Date().toISOString() })
      .where("id", "=", id)
      .execute();
    expect((await authenticate(here, key)).keyId).toBe(id);
    expect((await authenticate(there, key)).keyId).toBe(id);

    // What `admin key revoke` does after revoking: one announcement, heard by both.
    await announceToEveryProcess(t.store, sqliteFile, { kind: "key_revoked", id });
    await until(() => here.cache.size === 0 && there.cache.size === 0, "both caches to forget the key");
    expect(await refused(here, key)).toMatch(/^This API key was revoked on /);
    expect(await refused(there, key)).toMatch(/^This API key was revoked on /);
  });

  it("a revocation in a process with a bridge (the studio's) reaches the other at once", async () => {
    const here = await process(t.store);
    const there = await process(elsewhere);
    const { id, key } = await liveKey();
    const other = await liveKey();
    for (const p of [here, there]) {
      await authenticate(p, key);
      await authenticate(p, other.key);
    }
    await revokeApiKey({ db: here.store.db }, { keyId: id, audit: CLI_AUDIT });
    await here.signals.keyRevoked(id);
    expect(await refused(here, key)).toMatch(/revoked/);
    await until(() => there.cache.size === 1, "the other process to forget the revoked key");
    expect(await refused(there, key)).toMatch(/revoked/);
    // The other key stays cached and live.
    expect((await authenticate(there, other.key)).keyId).toBe(other.id);
  });

  it("a revocation in the studio's thread resolves only once the API's thread forgot the key", async () => {
    // The studio thread and the server's thread: two of everything in one process, the relay a
    // message each way (bin/studio-thread.ts); no bridge, so only the relay can reach the host.
    const studio = await process(elsewhere);
    const host = { signals: createRunSignals(), cache: createApiKeyCache({ ttlMs: FOREVER_MS }) };
    host.signals.onKeyRevoked((keyId) => host.cache.forget(keyId));
    const heard: string[] = [];
    studio.signals.setHostRelay(async (message) => {
      await new Promise((resolve) => setTimeout(resolve, 20)); // the host's event loop is busy
      host.signals.receive(message);
      heard.push(message.kind);
    });
    const { id, key } = await liveKey();
    await authenticateApiKey({ db: t.store.db }, { xApiKey: key, authorization: undefined }, "atl", host.cache);
    expect(host.cache.size).toBe(1);
    await revokeApiKey({ db: studio.store.db }, { keyId: id, audit: CLI_AUDIT });
    await studio.signals.keyRevoked(id);
    expect(host.cache.size).toBe(0);
    await studio.signals.sessionsEnded("usr_x");
    expect(heard).toEqual(["key_revoked", "sessions_ended"]);
    studio.signals.setHostRelay(null);
  });

  it("studio sessions end in every process: a password change from the admin CLI, a sign-out in another process", async () => {
    const here = await process(t.store);
    const there = await process(elsewhere);
    const workspace = await createWorkspace({ db: t.store.db }, { name: "sessions" });
    const user = await createUser(
      { db: t.store.db },
      { email: `s-${Date.now()}@example.com`, password: "long enough", workspaceId: workspace.id, role: "creator" },
    );
    const read = (p: Process, id: string) => studioSessionUser({ db: p.store.db }, p.sessions, id);

    const first = await startStudioSession({ db: t.store.db }, user.id);
    expect((await read(here, first.id))?.id).toBe(user.id);
    expect((await read(there, first.id))?.id).toBe(user.id);
    // What `admin user password` does: the change (which ends the sessions), then one announcement.
    await setUserPassword({ db: t.store.db }, { email: user.email, password: "another long one", audit: CLI_AUDIT });
    expect((await read(there, first.id))?.id).toBe(user.id); // cached, until the signal
    await announceToEveryProcess(t.store, sqliteFile, { kind: "sessions_ended", id: user.id });
    await until(
      () => here.sessions.get(first.id) === undefined && there.sessions.get(first.id) === undefined,
      "both caches to forget the user",
    );
    expect(await read(here, first.id)).toBeNull();
    expect(await read(there, first.id)).toBeNull();

    // Sign-out in a process with a bridge (the studio's): the other process hears it.
    const second = await startStudioSession({ db: t.store.db }, user.id);
    expect((await read(there, second.id))?.id).toBe(user.id);
    await endStudioSession({ db: here.store.db }, second.id);
    await here.signals.sessionsEnded(user.id);
    await until(() => there.sessions.get(second.id) === undefined, "the other process to forget the session");
    expect(await read(there, second.id)).toBeNull();
  });
});
