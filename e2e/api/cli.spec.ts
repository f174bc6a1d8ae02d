// The admin CLI (bin/admin.ts) against the running server's store: workspaces and keys it
// makes are the ones the API sees, and a key it revokes stops working.
import { expect, test } from "@playwright/test";
import { admin, adminFailure, createKey, createWorkspace, revokeKey, uniqueName, type CreatedKey, type Workspace } from "./admin";
import { expectError, expectOk, ISO_MS, keyHeader } from "./helpers";

const DAY_MS = 86_400_000;

test("workspace create and list", () => {
  const name = uniqueName("listed");
  const created = createWorkspace({ name, credit: "2" });
  expect(created).toMatchObject({ object: "workspace", name });
  expect(created.id).toMatch(/^ws_[0-9A-Za-z]+$/);
  expect(created.created_at).toMatch(ISO_MS);
  const second = createWorkspace();

  const list = admin<{ object: string; data: Workspace[] }>(["workspace", "list"]);
  expect(list.object).toBe("list");
  expect(list.data).toContainEqual(created);
  expect(list.data).toContainEqual(second);
});

test("key create: a raw atl_ key shown once, with scopes and expiry", () => {
  const workspace = createWorkspace();
  const full = createKey(workspace.id, { name: "deploy" });
  expect(full.id).toMatch(/^key_[0-9A-Za-z]+$/);
  expect(full.key).toMatch(/^atl_[0-9A-Za-z]+$/);
  expect(full).toMatchObject({ workspace_id: workspace.id, name: "deploy", revoked_at: null });
  expect([...full.scopes].sort()).toEqual(["generations:read", "generations:write", "workspace:read"]);
  // A new key lasts 365 days unless 30, 90 days or never is chosen.
  expect(Date.parse(full.expires_at!) - Date.parse(full.created_at)).toBe(365 * DAY_MS);
  const month = createKey(workspace.id, { expires: "30d" });
  expect(Date.parse(month.expires_at!) - Date.parse(month.created_at)).toBe(30 * DAY_MS);
  const quarter = createKey(workspace.id, { expires: "90d" });
  expect(Date.parse(quarter.expires_at!) - Date.parse(quarter.created_at)).toBe(90 * DAY_MS);
  const forever = createKey(workspace.id, { expires: "never" });
  expect(forever.expires_at).toBeNull();
  const narrow = createKey(workspace.id, { scopes: ["generations:read"] });
  expect(narrow.scopes).toEqual(["generations:read"]);
  expect(new Set([full.key, month.key, quarter.key, forever.key, narrow.key]).size).toBe(5);
});

test("key list shows the workspace's keys without the raw key", () => {
  const workspace = createWorkspace();
  const other = createWorkspace();
  const keys: CreatedKey[] = [createKey(workspace.id, { name: "one" }), createKey(workspace.id, { name: "two", scopes: ["workspace:read"] })];
  const foreign = createKey(other.id);

  const list = admin<{ object: string; data: Record<string, unknown>[] }>(["key", "list", "--workspace", workspace.id]);
  expect(list.object).toBe("list");
  expect(list.data.map((k) => k.id).sort()).toEqual(keys.map((k) => k.id).sort());
  const text = JSON.stringify(list);
  for (const k of [...keys, foreign]) expect(text).not.toContain(k.key);
  for (const entry of list.data) {
    expect(entry).not.toHaveProperty("key");
    const created = keys.find((k) => k.id === entry.id)!;
    expect(entry).toMatchObject({ name: created.name, scopes: created.scopes, workspace_id: workspace.id, revoked_at: null });
  }
});

test("key revoke: the key then gets 401 invalid_api_key mentioning revoked; others still work", async ({ request }) => {
  const workspace = createWorkspace({ credit: "1" });
  const doomed = createKey(workspace.id, { name: "doomed" });
  const kept = createKey(workspace.id, { name: "kept" });
  await expectOk(await request.get("/v1/credits", { headers: keyHeader(doomed.key) }));

  const revoked = revokeKey(doomed.id);
  expect(revoked.id).toBe(doomed.id);
  expect(revoked.revoked_at).toMatch(ISO_MS);
  expect(revoked).not.toHaveProperty("key");

  const res = await request.get("/v1/credits", { headers: keyHeader(doomed.key) });
  await expectError(res, 401, "invalid_api_key", { message: /revoked/i });
  await expectError(await request.get("/v1/models", { headers: { authorization: `Bearer ${doomed.key}` } }), 401, "invalid_api_key", {
    message: /revoked/i,
  });
  await expectOk(await request.get("/v1/credits", { headers: keyHeader(kept.key) }));

  const listed = admin<{ data: { id: string; revoked_at: string | null }[] }>(["key", "list", "--workspace", workspace.id]);
  expect(listed.data.find((k) => k.id === doomed.id)!.revoked_at).toBe(revoked.revoked_at);
  expect(listed.data.find((k) => k.id === kept.id)!.revoked_at).toBeNull();

  // Revoking again is safe and keeps the first time.
  expect(revokeKey(doomed.id).revoked_at).toBe(revoked.revoked_at);
});

test("CLI errors print JSON on stderr and exit 1", () => {
  const unknown = adminFailure(["key", "create", "--workspace", "ws_doesnotexist000000000000"]);
  expect(unknown.status).toBe(1);
  expect(JSON.parse(unknown.stderr.trim().split("\n").at(-1)!)).toMatchObject({ error: { code: "resource_not_found" } });

  const badScope = adminFailure(["key", "create", "--workspace", createWorkspace().id, "--scopes", "generations:admin"]);
  expect(badScope.status).toBe(1);
  expect(JSON.parse(badScope.stderr.trim().split("\n").at(-1)!)).toMatchObject({ error: { code: "invalid_parameter", param: "scopes" } });

  const badUsd = adminFailure(["credit", "add", "--workspace", createWorkspace().id, "--usd", "-5"]);
  expect(badUsd.status).toBe(1);
});
