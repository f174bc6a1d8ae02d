// Roles over the API and MCP: a key made for a member acts with at most that member's role now.
// Demoted to viewer, the key still reads and cannot spend (403 permission_denied naming the role,
// in the API's error shape and as the MCP tool's error); a creator's key manages no webhooks; the
// member removed, the key is refused.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "./fixtures";
import { admin, adminFailure, createWorkspace, uniqueName } from "./admin";
import { expectError, keyHeader } from "./helpers";
import { call, connect } from "./mcp-client";
import { SERVERS } from "./servers";

const GRADIENT = { model: "atelier/gradient", input: { prompt: "roles" } };

function toolError(result: CallToolResult): { code: string; message: string } {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  const first = result.content[0] as { text: string };
  return (JSON.parse(first.text) as { error: { code: string; message: string } }).error;
}

test("a member's key follows their role: viewer reads but cannot spend (API and MCP), creator manages no webhooks, removed is refused", async ({
  request,
}) => {
  const team = createWorkspace({ credit: "5" });
  const owner = `${uniqueName("owner")}@example.com`;
  const member = `${uniqueName("member")}@example.com`;
  admin(["user", "create", "--email", owner, "--password", "owner-pass-1", "--workspace", team.id, "--role", "owner"]);
  admin([
    "user",
    "create",
    "--email",
    member,
    "--password",
    "member-pass-1",
    "--workspace",
    team.id,
    "--role",
    "creator",
  ]);
  const key = admin<{ key: string; created_by: string }>(["key", "create", "--workspace", team.id, "--member", member]);
  expect(key.created_by).toMatch(/^usr_/);
  const headers = keyHeader(key.key);

  const created = await request.post("/v1/generations", { headers, data: GRADIENT });
  expect(created.status(), await created.text()).toBe(201);
  const run = (await created.json()) as { id: string };
  // A creator's key manages no webhooks, whatever its scopes.
  await expectError(
    await request.post("/v1/webhooks", { headers, data: { url: "https://example.com/hook" } }),
    403,
    "permission_denied",
    { message: /creator in this workspace; to manage webhooks takes admin or owner/ },
  );

  admin(["member", "role", "--workspace", team.id, "--email", member, "--role", "viewer"]);
  await expectError(await request.post("/v1/generations", { headers, data: GRADIENT }), 403, "permission_denied", {
    message: /The member who made this API key is a viewer in this workspace/,
  });
  expect((await request.get(`/v1/generations/${run.id}`, { headers })).status()).toBe(200);
  const client = await connect(SERVERS.main, key.key);
  try {
    const refused = toolError(await call(client, "generate", GRADIENT));
    expect(refused.code).toBe("permission_denied");
    expect(refused.message).toContain("viewer");
  } finally {
    await client.close();
  }

  // Removed from the workspace: the key they made is revoked with the membership.
  admin(["member", "remove", "--workspace", team.id, "--email", member]);
  await expectError(await request.get(`/v1/generations/${run.id}`, { headers }), 401, "invalid_api_key");
  // --member names a member of that workspace, nobody else.
  const other = createWorkspace();
  for (const who of [member, "nobody@example.com", "x\u0001@example.com"]) {
    const failed = adminFailure(["key", "create", "--workspace", other.id, "--member", who]);
    expect(failed.status).toBe(1);
    expect(JSON.parse(failed.stderr.trim().split("\n").at(-1)!).error).toMatchObject({
      code: "resource_not_found",
      param: "member",
    });
  }
});
