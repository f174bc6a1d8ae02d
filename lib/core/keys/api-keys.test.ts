import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "../../store/database";
import { openTestStore, testDialect, type TestStore } from "../../store/testing/test-store";
import {
  authenticateApiKey,
  createApiKey,
  hashApiKey,
  KEY_SECRET_LENGTH,
  listApiKeys,
  revokeApiKey,
  type PresentedCredentials,
} from "./api-keys";
import { createApiKeyCache } from "./api-key-cache";
import { SCOPES } from "../context";
import { ApiError } from "../../primitives/errors";
import { createWorkspace } from "../workspaces/workspaces";
import { CLI_AUDIT } from "../audit/audit-writer";

const PREFIX = "atl";
const DAY_MS = 86_400_000;

async function authError(db: Db, credentials: Partial<PresentedCredentials>): Promise<ApiError> {
  const err = await authenticateApiKey(
    { db },
    { xApiKey: undefined, authorization: undefined, ...credentials },
    PREFIX,
  ).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

async function expectInvalid(db: Db, credentials: Partial<PresentedCredentials>, slip: RegExp): Promise<void> {
  const err = await authError(db, credentials);
  expect(err.code).toBe("invalid_api_key");
  expect(err.status).toBe(401);
  expect(err.type).toBe("authentication_error");
  expect(err.message).toMatch(slip);
}

describe(`api keys (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  let workspaceId: string;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
    workspaceId = (await createWorkspace({ db }, { name: "keys test" })).id;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  describe("createApiKey", () => {
    it("shows the key once; the store keeps only its hash", async () => {
      const created = await createApiKey({ db }, { workspaceId, name: "  ci  ", prefix: PREFIX });
      expect(created.key).toMatch(new RegExp(`^atl_[0-9A-Za-z]{${KEY_SECRET_LENGTH}}$`));
      expect(created).toMatchObject({
        object: "api_key",
        workspace_id: workspaceId,
        name: "ci",
        revoked_at: null,
        last_used_at: null,
      });
      expect(created.id).toMatch(/^key_/);
      expect(created.hint).toBe(`atl_…${created.key.slice(-4)}`);

      const row = await db.selectFrom("api_keys").selectAll().where("id", "=", created.id).executeTakeFirstOrThrow();
      expect(row.key_hash).toBe(hashApiKey(created.key));
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      // No column holds the raw key, or its secret part.
      const secret = created.key.slice(4);
      for (const value of Object.values(row)) {
        expect(String(value)).not.toContain(created.key);
        expect(String(value)).not.toContain(secret);
      }
    });

    it("gives every key a different secret", async () => {
      const a = await createApiKey({ db }, { workspaceId, prefix: PREFIX });
      const b = await createApiKey({ db }, { workspaceId, prefix: PREFIX });
      expect(a.key).not.toBe(b.key);
      expect(a.id).not.toBe(b.id);
    });

    it("lasts 365 days by default; 30 days, 90 days or never when chosen", async () => {
      const lifetime = (k: { created_at: string; expires_at: string | null }) =>
        k.expires_at === null ? null : (Date.parse(k.expires_at) - Date.parse(k.created_at)) / DAY_MS;
      expect(lifetime(await createApiKey({ db }, { workspaceId, prefix: PREFIX }))).toBe(365);
      expect(lifetime(await createApiKey({ db }, { workspaceId, prefix: PREFIX, expires: "365d" }))).toBe(365);
      expect(lifetime(await createApiKey({ db }, { workspaceId, prefix: PREFIX, expires: "90d" }))).toBe(90);
      expect(lifetime(await createApiKey({ db }, { workspaceId, prefix: PREFIX, expires: "30d" }))).toBe(30);
      const never = await createApiKey({ db }, { workspaceId, prefix: PREFIX, expires: "never" });
      expect(never.expires_at).toBeNull();
      expect((await authenticateApiKey({ db }, { xApiKey: never.key, authorization: undefined }, PREFIX)).keyId).toBe(
        never.id,
      );
    });

    it("refuses an expiry that is not one of the choices", async () => {
      const err = await createApiKey({ db }, { workspaceId, prefix: PREFIX, expires: "7d" as never }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("invalid_parameter");
      expect((err as ApiError).param).toBe("expires");
    });

    it("gets all three scopes by default, or the ones given", async () => {
      const all = await createApiKey({ db }, { workspaceId, prefix: PREFIX });
      expect(all.scopes).toEqual([...SCOPES]);
      const readOnly = await createApiKey({ db }, { workspaceId, prefix: PREFIX, scopes: ["generations:read"] });
      expect(readOnly.scopes).toEqual(["generations:read"]);
      const auth = await authenticateApiKey({ db }, { xApiKey: readOnly.key, authorization: undefined }, PREFIX);
      expect(auth.scopes).toEqual(["generations:read"]);
    });

    it("refuses an unknown workspace and a bad name", async () => {
      const unknown = await createApiKey({ db }, { workspaceId: "ws_nope", prefix: PREFIX }).catch((e: unknown) => e);
      expect((unknown as ApiError).code).toBe("resource_not_found");
      const blank = await createApiKey({ db }, { workspaceId, name: "   ", prefix: PREFIX }).catch((e: unknown) => e);
      expect((blank as ApiError).code).toBe("invalid_parameter");
      expect((blank as ApiError).param).toBe("name");
    });
  });

  describe("authenticateApiKey", () => {
    let key: string;
    let keyId: string;
    let other: string;
    beforeAll(async () => {
      const created = await createApiKey({ db }, { workspaceId, name: "auth", prefix: PREFIX });
      key = created.key;
      keyId = created.id;
      other = (await createApiKey({ db }, { workspaceId, name: "auth 2", prefix: PREFIX })).key;
    });

    const expected = () => ({ keyId, workspaceId, scopes: [...SCOPES], role: null });

    it("accepts the key in x-api-key", async () => {
      expect(await authenticateApiKey({ db }, { xApiKey: key, authorization: undefined }, PREFIX)).toEqual(expected());
    });

    it("accepts the key as Authorization: Bearer", async () => {
      expect(await authenticateApiKey({ db }, { xApiKey: undefined, authorization: `Bearer ${key}` }, PREFIX)).toEqual(
        expected(),
      );
      expect(
        await authenticateApiKey({ db }, { xApiKey: undefined, authorization: `bearer   ${key} ` }, PREFIX),
      ).toEqual(expected());
    });

    it("accepts the same key in both headers", async () => {
      expect(await authenticateApiKey({ db }, { xApiKey: key, authorization: `Bearer ${key}` }, PREFIX)).toEqual(
        expected(),
      );
    });

    it("records when a key was last used", async () => {
      const fresh = await createApiKey({ db }, { workspaceId, prefix: PREFIX });
      await authenticateApiKey({ db }, { xApiKey: fresh.key, authorization: undefined }, PREFIX);
      const row = await db
        .selectFrom("api_keys")
        .select("last_used_at")
        .where("id", "=", fresh.id)
        .executeTakeFirstOrThrow();
      expect(row.last_used_at).not.toBeNull();
    });

    it("two different keys in the two headers → conflicting_credentials", async () => {
      const err = await authError(db, { xApiKey: key, authorization: `Bearer ${other}` });
      expect(err.code).toBe("conflicting_credentials");
      expect(err.status).toBe(400);
    });

    it("no key at all → missing_api_key", async () => {
      const err = await authError(db, {});
      expect(err.code).toBe("missing_api_key");
      expect(err.status).toBe(401);
    });

    it("an empty header → invalid_api_key naming the empty header", async () => {
      await expectInvalid(db, { xApiKey: "" }, /x-api-key header is empty/);
      await expectInvalid(db, { xApiKey: "   " }, /empty/);
      await expectInvalid(db, { authorization: "Bearer " }, /Authorization header is empty/);
      await expectInvalid(db, { authorization: "" }, /empty/);
    });

    it("an unexpanded shell variable → invalid_api_key naming it", async () => {
      await expectInvalid(db, { xApiKey: "$ATELIER_KEY" }, /shell variable/);
      await expectInvalid(db, { authorization: "Bearer ${ATELIER_KEY}" }, /shell variable/);
    });

    it('"Bearer atl_…" inside x-api-key → invalid_api_key naming the Bearer slip', async () => {
      await expectInvalid(db, { xApiKey: `Bearer ${key}` }, /x-api-key header holds "Bearer/);
    });

    it("an Authorization header without Bearer → invalid_api_key", async () => {
      await expectInvalid(db, { authorization: key }, /must be "Bearer <API key>"/);
      await expectInvalid(db, { authorization: `Basic ${key}` }, /must be "Bearer <API key>"/);
    });

    it("a key without the prefix → invalid_api_key saying keys begin with it", async () => {
      await expectInvalid(db, { xApiKey: key.slice(4) }, /begin with "atl_"/);
      await expectInvalid(db, { xApiKey: `sk_${key.slice(4)}` }, /begin with "atl_"/);
    });

    it("a key cut short → invalid_api_key saying so", async () => {
      await expectInvalid(db, { xApiKey: key.slice(0, -5) }, /cut short/);
      await expectInvalid(db, { authorization: `Bearer ${key.slice(0, 10)}` }, /cut short/);
    });

    it("a key with characters a key never has → invalid_api_key", async () => {
      await expectInvalid(db, { xApiKey: `${key.slice(0, -1)}"` }, /characters a key never has/);
    });

    it("an unknown key → invalid_api_key", async () => {
      const last = key.at(-1) === "a" ? "b" : "a";
      await expectInvalid(db, { xApiKey: key.slice(0, -1) + last }, /not known/);
      await expectInvalid(db, { xApiKey: `${key}x` }, /not known/);
    });

    it("a revoked key → invalid_api_key saying it was revoked", async () => {
      const doomed = await createApiKey({ db }, { workspaceId, prefix: PREFIX });
      await authenticateApiKey({ db }, { xApiKey: doomed.key, authorization: undefined }, PREFIX);
      const revoked = await revokeApiKey({ db }, { keyId: doomed.id, workspaceId, audit: CLI_AUDIT });
      expect(revoked.revoked_at).not.toBeNull();
      await expectInvalid(db, { xApiKey: doomed.key }, /revoked/);
      // Revoking again keeps the first time.
      expect((await revokeApiKey({ db }, { keyId: doomed.id, audit: CLI_AUDIT })).revoked_at).toBe(revoked.revoked_at);
      // The other keys still work.
      expect((await authenticateApiKey({ db }, { xApiKey: key, authorization: undefined }, PREFIX)).keyId).toBe(keyId);
    });

    it("revoking a key of another workspace finds nothing and changes nothing", async () => {
      const elsewhere = (await createWorkspace({ db }, { name: "elsewhere" })).id;
      const theirs = await createApiKey({ db }, { workspaceId: elsewhere, prefix: PREFIX });
      const err = await revokeApiKey({ db }, { keyId: theirs.id, workspaceId, audit: CLI_AUDIT }).catch(
        (e: unknown) => e,
      );
      expect((err as ApiError).code).toBe("resource_not_found");
      expect(
        (await authenticateApiKey({ db }, { xApiKey: theirs.key, authorization: undefined }, PREFIX)).workspaceId,
      ).toBe(elsewhere);
    });

    it("an expired key → invalid_api_key saying it expired", async () => {
      const old = await createApiKey({ db }, { workspaceId, prefix: PREFIX, expires: "30d" });
      await db
        .updateTable("api_keys")
        .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
        .where("id", "=", old.id)
        .execute();
      await expectInvalid(db, { xApiKey: old.key }, /expired/);
    });

    it("a key kept in a process's memory is refused there once its expiry passes, without waiting for the cache to lapse", async () => {
      const cache = createApiKeyCache();
      const soon = await createApiKey({ db }, { workspaceId, prefix: PREFIX, expires: "30d" });
      const expiresAt = Date.now() + 2_000;
      await db
        .updateTable("api_keys")
        .set({ expires_at: new Date(expiresAt).toISOString() })
        .where("id", "=", soon.id)
        .execute();
      const credentials = { xApiKey: soon.key, authorization: undefined };
      expect((await authenticateApiKey({ db }, credentials, PREFIX, cache)).keyId).toBe(soon.id);
      expect(cache.size).toBe(1);
      vi.useFakeTimers({ now: expiresAt + 1_000, toFake: ["Date"] });
      try {
        const err = await authenticateApiKey({ db }, credentials, PREFIX, cache).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: "invalid_api_key", message: expect.stringMatching(/expired/) });
      } finally {
        vi.useRealTimers();
      }
    });

    it("a key of another installation's prefix is refused", async () => {
      const theirs = await createApiKey({ db }, { workspaceId, prefix: "abc" });
      await expectInvalid(db, { xApiKey: theirs.key }, /begin with "atl_"/);
      expect((await authenticateApiKey({ db }, { xApiKey: theirs.key, authorization: undefined }, "abc")).keyId).toBe(
        theirs.id,
      );
    });
  });

  describe("listApiKeys", () => {
    it("lists a workspace's keys, newest first, without the key or its hash", async () => {
      const ws = (await createWorkspace({ db }, { name: "list keys" })).id;
      const elsewhere = (await createWorkspace({ db }, { name: "list keys elsewhere" })).id;
      const first = await createApiKey({ db }, { workspaceId: ws, name: "first", prefix: PREFIX });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await createApiKey({ db }, { workspaceId: ws, name: "second", prefix: PREFIX, expires: "never" });
      await createApiKey({ db }, { workspaceId: elsewhere, name: "not mine", prefix: PREFIX });
      await revokeApiKey({ db }, { keyId: first.id, audit: CLI_AUDIT });

      const list = await listApiKeys({ db }, { workspaceId: ws });
      expect(list.map((k) => k.name)).toEqual(["second", "first"]);
      expect(list[0]).toMatchObject({
        id: second.id,
        object: "api_key",
        workspace_id: ws,
        hint: second.hint,
        expires_at: null,
        revoked_at: null,
      });
      expect(list[1]!.revoked_at).not.toBeNull();
      for (const item of list) {
        expect(item).not.toHaveProperty("key");
        expect(item).not.toHaveProperty("key_hash");
        expect(JSON.stringify(item)).not.toContain(first.key.slice(4));
        expect(JSON.stringify(item)).not.toContain(second.key.slice(4));
      }
      expect(await listApiKeys({ db }, { workspaceId: "ws_nobody" })).toEqual([]);
    });
  });
});
