// The admin CLI (bin/admin.ts) against the running server's store: workspaces and keys it
// makes are the ones the API sees, and a key it revokes stops working.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect, test } from "./fixtures";
import { startReplicateFake } from "../../lib/providers/replicate/testing/replicate-fake";
import {
  admin,
  adminFailure,
  createKey,
  createWorkspace,
  revokeKey,
  uniqueName,
  type CreatedKey,
  type Workspace,
} from "./admin";
import { expectError, expectOk, ISO_MS, keyHeader } from "./helpers";
// The bundled CLI, as every other call here: tsx compiling the CLI's modules on each of these calls
// took 5-8 s apiece on a busy 2-core machine, past the test's 30 s.
import { ADMIN_CLI } from "../admin-cli";
import { REPO_ROOT, SERVERS, storeEnv } from "./servers";

const execFileAsync = promisify(execFile);

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
  const keys: CreatedKey[] = [
    createKey(workspace.id, { name: "one" }),
    createKey(workspace.id, { name: "two", scopes: ["workspace:read"] }),
  ];
  const foreign = createKey(other.id);

  const list = admin<{ object: string; data: Record<string, unknown>[] }>(["key", "list", "--workspace", workspace.id]);
  expect(list.object).toBe("list");
  expect(list.data.map((k) => k.id).sort()).toEqual(keys.map((k) => k.id).sort());
  const text = JSON.stringify(list);
  for (const k of [...keys, foreign]) expect(text).not.toContain(k.key);
  for (const entry of list.data) {
    expect(entry).not.toHaveProperty("key");
    const created = keys.find((k) => k.id === entry.id)!;
    expect(entry).toMatchObject({
      name: created.name,
      scopes: created.scopes,
      workspace_id: workspace.id,
      revoked_at: null,
    });
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
  await expectError(
    await request.get("/v1/models", { headers: { authorization: `Bearer ${doomed.key}` } }),
    401,
    "invalid_api_key",
    {
      message: /revoked/i,
    },
  );
  await expectOk(await request.get("/v1/credits", { headers: keyHeader(kept.key) }));

  const listed = admin<{ data: { id: string; revoked_at: string | null }[] }>([
    "key",
    "list",
    "--workspace",
    workspace.id,
  ]);
  expect(listed.data.find((k) => k.id === doomed.id)!.revoked_at).toBe(revoked.revoked_at);
  expect(listed.data.find((k) => k.id === kept.id)!.revoked_at).toBeNull();

  // Revoking again is safe and keeps the first time.
  expect(revokeKey(doomed.id).revoked_at).toBe(revoked.revoked_at);
});

test("workspace create --key: the workspace and its first key in one call, the key working at once", async ({
  request,
}) => {
  const name = uniqueName("with-key");
  const created = admin<Workspace & { api_key: CreatedKey }>([
    "workspace",
    "create",
    "--name",
    name,
    "--credit",
    "3",
    "--key",
  ]);
  expect(created).toMatchObject({ object: "workspace", name });
  expect(created.api_key).toMatchObject({ object: "api_key", workspace_id: created.id, revoked_at: null });
  expect(created.api_key.key).toMatch(/^atl_[0-9A-Za-z]+$/);
  expect([...created.api_key.scopes].sort()).toEqual(["generations:read", "generations:write", "workspace:read"]);
  expect(Date.parse(created.api_key.expires_at!) - Date.parse(created.api_key.created_at)).toBe(365 * DAY_MS);
  const credits = await expectOk<{ available_usd: string }>(
    await request.get("/v1/credits", { headers: keyHeader(created.api_key.key) }),
  );
  expect(credits.available_usd).toBe("3.00");
  const listed = admin<{ data: { id: string }[] }>(["key", "list", "--workspace", created.id]);
  expect(listed.data.map((k) => k.id)).toEqual([created.api_key.id]);

  // Without --key, no key and no api_key field; a refused name makes neither.
  expect(createWorkspace()).not.toHaveProperty("api_key");
  const refused = adminFailure(["workspace", "create", "--name", " ", "--key"]);
  expect(refused.status).toBe(1);
  expect(JSON.parse(refused.stderr.trim().split("\n").at(-1)!)).toMatchObject({
    error: { code: "invalid_parameter", param: "name" },
  });
});

test("CLI errors print JSON on stderr and exit 1", () => {
  const unknown = adminFailure(["key", "create", "--workspace", "ws_doesnotexist000000000000"]);
  expect(unknown.status).toBe(1);
  expect(JSON.parse(unknown.stderr.trim().split("\n").at(-1)!)).toMatchObject({
    error: { code: "resource_not_found" },
  });

  const badScope = adminFailure([
    "key",
    "create",
    "--workspace",
    createWorkspace().id,
    "--scopes",
    "generations:admin",
  ]);
  expect(badScope.status).toBe(1);
  expect(JSON.parse(badScope.stderr.trim().split("\n").at(-1)!)).toMatchObject({
    error: { code: "invalid_parameter", param: "scopes" },
  });

  const badUsd = adminFailure(["credit", "add", "--workspace", createWorkspace().id, "--usd", "-5"]);
  expect(badUsd.status).toBe(1);
});

test("workspace create: no credit yet is the normal first step (--credit 0 or omitted); bad amounts are refused", async ({
  request,
}) => {
  for (const credit of ["0", "0.00", undefined]) {
    const workspace = createWorkspace(credit === undefined ? {} : { credit });
    const res = await request.get("/v1/credits", { headers: keyHeader(createKey(workspace.id).key) });
    await expectOk(res);
    expect(await res.json()).toMatchObject({ available_usd: "0.00", held_usd: "0.00" });
  }
  for (const credit of ["-5", "-0", "abc", "1.1234567", "1e3", ""]) {
    const failed = adminFailure(["workspace", "create", "--name", uniqueName("bad-credit"), "--credit", credit]);
    expect(failed.status, `--credit ${JSON.stringify(credit)}`).toBe(1);
    const error = JSON.parse(failed.stderr.trim().split("\n").at(-1)!).error;
    expect(error).toMatchObject({ code: "invalid_parameter", param: "credit" });
    expect(error.message).toContain("US dollars");
  }
  // Adding nothing to a balance is a slip, not an action.
  const zeroAdd = adminFailure(["credit", "add", "--workspace", createWorkspace().id, "--usd", "0"]);
  expect(zeroAdd.status).toBe(1);
  expect(JSON.parse(zeroAdd.stderr.trim().split("\n").at(-1)!).error.message).toContain("more than 0");
});

test("user password: a new random password printed once, or the one given; unknown users and short passwords refused", () => {
  const workspace = createWorkspace();
  const email = `${uniqueName("pw")}@example.com`;
  admin(["user", "create", "--email", email, "--password", "first-password", "--workspace", workspace.id]);
  const generated = admin<{ email: string; password: string }>(["user", "password", "--email", email.toUpperCase()]);
  expect(generated).toMatchObject({ object: "user", email, workspace_id: workspace.id });
  expect(generated.password).toMatch(/^[A-Za-z0-9_-]{12}$/);
  const chosen = admin<Record<string, unknown>>([
    "user",
    "password",
    "--email",
    email,
    "--password",
    "my-own-password",
  ]);
  expect(chosen).toMatchObject({ email });
  expect(chosen).not.toHaveProperty("password");
  expect(admin<{ data: { email: string }[] }>(["user", "list"]).data.map((u) => u.email)).toContain(email);

  const unknown = adminFailure(["user", "password", "--email", "nobody-here@example.com"]);
  expect(unknown.status).toBe(1);
  expect(JSON.parse(unknown.stderr.trim().split("\n").at(-1)!).error).toMatchObject({
    code: "resource_not_found",
    param: "email",
  });
  const short = adminFailure(["user", "password", "--email", email, "--password", "short"]);
  expect(JSON.parse(short.stderr.trim().split("\n").at(-1)!).error).toMatchObject({
    code: "invalid_parameter",
    param: "password",
  });
});

test("member add, role, remove and list; user ops; the last owner stays; bad roles and emails refused", () => {
  const team = createWorkspace();
  const other = createWorkspace();
  const owner = `${uniqueName("own")}@example.com`;
  const guest = `${uniqueName("guest")}@example.com`;
  const lastError = (args: string[]) => {
    const failed = adminFailure(args);
    expect(failed.status).toBe(1);
    return JSON.parse(failed.stderr.trim().split("\n").at(-1)!).error as { code: string; param: string | null };
  };
  admin([
    "user",
    "create",
    "--email",
    owner,
    "--password",
    "first-password",
    "--workspace",
    team.id,
    "--role",
    "owner",
  ]);
  admin(["user", "create", "--email", guest, "--password", "first-password", "--workspace", other.id]);
  expect(admin(["member", "add", "--workspace", team.id, "--email", guest, "--role", "viewer"])).toMatchObject({
    object: "member",
    email: guest,
    role: "viewer",
  });
  expect(admin(["member", "role", "--workspace", team.id, "--email", guest, "--role", "admin"])).toMatchObject({
    role: "admin",
  });
  const members = admin<{ data: { email: string; role: string }[] }>(["member", "list", "--workspace", team.id]);
  expect(members.data.map((m) => [m.email, m.role])).toEqual([
    [owner, "owner"],
    [guest, "admin"],
  ]);
  const listed = admin<{
    data: { email: string; ops: boolean; memberships: { workspace_id: string; role: string }[] }[];
  }>(["user", "list"]).data.find((u) => u.email === guest);
  expect(listed?.memberships).toEqual(
    expect.arrayContaining([
      { workspace_id: other.id, role: "creator" },
      { workspace_id: team.id, role: "admin" },
    ]),
  );
  expect(admin(["user", "ops", "--email", guest, "--on"])).toMatchObject({ email: guest, ops: true });
  expect(admin(["user", "ops", "--email", guest, "--off"])).toMatchObject({ ops: false });

  expect(lastError(["member", "role", "--workspace", team.id, "--email", owner, "--role", "admin"]).code).toBe(
    "conflict",
  );
  expect(lastError(["member", "remove", "--workspace", team.id, "--email", owner]).code).toBe("conflict");
  for (const role of ["ops", "constructor", "owner\u0001", "x".repeat(3000)]) {
    expect(lastError(["member", "role", "--workspace", team.id, "--email", guest, "--role", role])).toMatchObject({
      code: "invalid_parameter",
      param: "role",
    });
  }
  expect(
    lastError(["member", "add", "--workspace", team.id, "--email", "not an email", "--role", "viewer"]),
  ).toMatchObject({
    code: "resource_not_found",
    param: "email",
  });
  expect(lastError(["member", "list", "--workspace", "ws_nothere"])).toMatchObject({ code: "resource_not_found" });
  // An invitation: the link printed once (no SMTP_URL here: not mailed), the token never stored.
  const invited = admin<{ object: string; email: string; role: string; link: string; mail: string }>([
    "invite",
    "create",
    ...["--workspace", team.id, "--email", `${uniqueName("inv")}@Example.com`, "--role", "creator"],
  ]);
  expect(invited).toMatchObject({ object: "invitation", role: "creator", mail: "off" });
  expect(invited.email).toMatch(/@example\.com$/);
  expect(invited.link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
  expect(invited).not.toHaveProperty("token");
  expect(lastError(["invite", "create", "--workspace", team.id, "--email", owner, "--role", "viewer"]).code).toBe(
    "conflict",
  );
  expect(admin(["member", "remove", "--workspace", team.id, "--email", guest])).toMatchObject({ removed: true });
  expect(lastError(["member", "remove", "--workspace", team.id, "--email", guest]).code).toBe("resource_not_found");
});

test("provider import writes a ready entry from a Replicate model's own schema, and refuses a bad call with the message", async () => {
  // The fake answers in this process, so the CLI runs without blocking it (execFile, not execFileSync).
  const replicate = await startReplicateFake();
  const dir = await mkdtemp(path.join(os.tmpdir(), "atelier-import-"));
  const file = path.join(dir, "providers.json");
  const cli = (args: string[]) =>
    execFileAsync(process.execPath, [ADMIN_CLI, "--json", ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...storeEnv(SERVERS.main), REPLICATE_API_TOKEN: replicate.token },
    });
  try {
    const base = ["provider", "import", "--file", file, "--provider", "replicate", "--base-url", replicate.url];
    const { stdout } = await cli([
      ...base,
      "--replicate",
      "black-forest-labs/flux-schnell",
      "--id",
      "bfl/flux-schnell",
      "--usd",
      "0.003",
      "--unit",
      "image",
    ]);
    expect(JSON.parse(stdout)).toMatchObject({
      object: "provider_import",
      provider: "replicate",
      entry: "bfl/flux-schnell",
    });
    const written = JSON.parse(await readFile(file, "utf8")) as {
      providers: { id: string; kind: string; api_key_env: string; entries: Record<string, unknown>[] }[];
    };
    expect(written.providers).toHaveLength(1);
    expect(written.providers[0]).toMatchObject({
      id: "replicate",
      kind: "replicate",
      api_key_env: "REPLICATE_API_TOKEN",
    });
    const entry = written.providers[0]!.entries[0]!;
    expect(entry).toMatchObject({
      id: "bfl/flux-schnell",
      upstream_model: "black-forest-labs/flux-schnell",
      pricing: { unit: "image", usd: "0.003" },
    });
    expect(entry.input_schema).toMatchObject({ type: "object", additionalProperties: false });
    // The file it wrote is one the server loads: applied to a store of its own (what a server does
    // with PROVIDERS_FILE at start), the CLI's catalog then lists the entry.
    const scratchStore = {
      ...process.env,
      DATA_DIR: path.join(dir, "store"),
      DATABASE_URL: "",
      REPLICATE_API_TOKEN: replicate.token,
    };
    await execFileAsync(process.execPath, [ADMIN_CLI, "--json", "provider", "apply", "--file", file], {
      cwd: REPO_ROOT,
      env: scratchStore,
    });
    const models = await execFileAsync(process.execPath, [ADMIN_CLI, "--json", "model", "list"], {
      cwd: REPO_ROOT,
      env: scratchStore,
    });
    expect((JSON.parse(models.stdout) as { data: { id: string }[] }).data.map((m) => m.id)).toContain(
      "bfl/flux-schnell",
    );

    const again = await cli([
      ...base,
      "--replicate",
      "black-forest-labs/flux-schnell",
      "--id",
      "bfl/flux-schnell",
      "--usd",
      "0.003",
      "--unit",
      "image",
    ]).catch((err: { code: number; stderr: string }) => err);
    expect((again as { code: number }).code).toBe(1);
    expect(JSON.parse((again as { stderr: string }).stderr.trim().split("\n").at(-1)!).error.message).toContain(
      "already has the entry bfl/flux-schnell",
    );
    const both = await cli([
      ...base,
      "--replicate",
      "a/b",
      "--fal",
      "c/d",
      "--id",
      "x/y",
      "--usd",
      "1",
      "--unit",
      "run",
    ]).catch((err: { code: number; stderr: string }) => err);
    expect(JSON.parse((both as { stderr: string }).stderr.trim().split("\n").at(-1)!).error).toMatchObject({
      code: "invalid_parameter",
      param: "replicate",
    });
  } finally {
    await replicate.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("provider import --comfyui writes an entry from a workflow and its bindings that the server loads", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "atelier-import-comfy-"));
  const file = path.join(dir, "providers.json");
  const workflow = path.join(REPO_ROOT, "e2e", "api", "fixtures", "comfyui", "workflows", "sdxl.json");
  const cli = (args: string[], env: Record<string, string> = {}) =>
    execFileAsync(process.execPath, [ADMIN_CLI, "--json", ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...storeEnv(SERVERS.main), ...env },
    });
  try {
    const binds = ["prompt=6.text", "seed=3.seed", "steps=3.steps", "width=5.width", "height=5.height"].flatMap((b) => [
      "--bind",
      b,
    ]);
    const base = [
      "provider",
      "import",
      "--file",
      file,
      "--provider",
      "gpu-box",
      "--comfyui",
      workflow,
      ...binds,
      "--id",
      "gpu-box/sdxl",
      "--usd",
      "0.01",
      "--unit",
      "image",
    ];
    // No box to ask here: a port nothing listens on; the import still writes the entry, with a note.
    const { stdout } = await cli([...base, "--base-url", "http://127.0.0.1:9"]);
    expect(JSON.parse(stdout)).toMatchObject({ object: "provider_import", provider: "gpu-box", entry: "gpu-box/sdxl" });
    // Applied to a store of its own (what a server does with PROVIDERS_FILE at start), it is served.
    const scratchStore = { DATA_DIR: path.join(dir, "store"), DATABASE_URL: "" };
    await cli(["provider", "apply", "--file", file], scratchStore);
    const models = await cli(["model", "list"], scratchStore);
    expect((JSON.parse(models.stdout) as { data: { id: string }[] }).data.map((m) => m.id)).toContain("gpu-box/sdxl");

    const badBind = await cli([...base.map((a) => (a === "prompt=6.text" ? "prompt=99.text" : a)), "--replace"]).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect((badBind as { code: number }).code).toBe(1);
    expect(JSON.parse((badBind as { stderr: string }).stderr.trim().split("\n").at(-1)!).error.message).toMatch(
      /node "99"/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
