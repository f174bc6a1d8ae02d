// The audit log over HTTP: changes made through the API (an admin's key) and the admin CLI are
// listed newest first with who made them, from where and what changed, never a secret; filters
// and cursor paging; a viewer's key is refused, a CLI key reads; another workspace's events are
// neither listed nor found (404), and nothing changes or deletes one (405); malformed query
// parameters answer 400 naming the parameter.
import { expect, test, type APIRequestContext } from "./fixtures";
import { admin, createKey, createWorkspaceWithKey, uniqueName, type CreatedKey } from "./admin";
import { expectError, expectOk, keyHeader } from "./helpers";
import { SERVERS } from "./servers";

interface AuditEvent {
  id: string;
  object: "audit_event";
  action: string;
  actor: { type: "user" | "key" | "cli"; id: string; email?: string };
  target: { type: string; id: string };
  ip: string | null;
  changes: Record<string, unknown>;
  created_at: string;
}
interface AuditList {
  object: "list";
  url: string;
  data: AuditEvent[];
  has_more: boolean;
  next_cursor: string | null;
}

const AUDIT_ID = /^aud_[0-9A-Za-z]{24}$/;

async function list(request: APIRequestContext, key: string, query = "", base = ""): Promise<AuditList> {
  return expectOk<AuditList>(await request.get(`${base}/v1/audit-events${query}`, { headers: keyHeader(key) }));
}

/** Every event the query lists, page after page of `limit`. */
async function all(request: APIRequestContext, key: string, query: string, limit: number): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const more: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const body: AuditList = await list(request, key, `?limit=${limit}${query}${more}`);
    expect(body.data.length).toBeLessThanOrEqual(limit);
    events.push(...body.data);
    if (!body.has_more) {
      expect(body.next_cursor).toBeNull();
      return events;
    }
    cursor = body.next_cursor;
  }
  throw new Error("too many pages");
}

test("changes by a member's key and by the CLI are listed with actor, address and change, never a secret", async ({
  request,
}) => {
  const team = createWorkspaceWithKey({ name: uniqueName("audit") });
  const cliKey = team.api_key.key;
  const people: Record<"owner" | "admin" | "viewer", string> = {
    owner: `${uniqueName("owner")}@example.com`,
    admin: `${uniqueName("admin")}@example.com`,
    viewer: `${uniqueName("viewer")}@example.com`,
  };
  for (const [role, email] of Object.entries(people))
    admin(["user", "create", "--email", email, "--password", "audit-pass-1", "--workspace", team.id, "--role", role]);
  const adminKey = admin<CreatedKey>(["key", "create", "--workspace", team.id, "--member", people.admin]);
  const viewerKey = admin<CreatedKey>(["key", "create", "--workspace", team.id, "--member", people.viewer]);

  // Through the API, as the admin's key: an endpoint whose URL carries the receiver's token, a
  // change to it, and a new signing secret.
  const url = "https://93.184.216.34/hooks/tok-e2e-9f8e?sig=qwerty";
  const endpoint = await expectOk<{ id: string }>(
    await request.post("/v1/webhooks", { headers: keyHeader(adminKey.key), data: { url, description: "deploys" } }),
    201,
  );
  await expectOk(
    await request.patch(`/v1/webhooks/${endpoint.id}`, { headers: keyHeader(adminKey.key), data: { enabled: false } }),
  );
  const secret = await expectOk<{ secret: string }>(
    await request.post("/v1/webhooks/default/secret/rotate", { headers: keyHeader(adminKey.key), data: {} }),
  );
  // Through the CLI: credit, a role, a key revoked.
  admin(["credit", "add", "--workspace", team.id, "--usd", "5"]);
  admin(["member", "role", "--workspace", team.id, "--email", people.viewer, "--role", "creator"]);
  const spare = createKey(team.id, { name: "spare" });
  const readOnly = createKey(team.id, { scopes: ["generations:read"] });
  admin(["key", "revoke", spare.id]);

  const events = (await list(request, cliKey, "?limit=100")).data;
  // Newest first; the workspace and its first key were made in one transaction, maybe in one millisecond.
  const times = events.map((e) => e.created_at);
  expect(times).toEqual([...times].sort().reverse());
  expect(events.map((e) => e.action).sort()).toEqual(
    [
      "key.revoked",
      "key.created",
      "key.created",
      "member.role_changed",
      "credit.granted",
      "webhook.secret_rotated",
      "webhook.updated",
      "webhook.created",
      "key.created",
      "key.created",
      "member.added",
      "member.added",
      "member.added",
      "key.created",
      "workspace.created",
    ].sort(),
  );
  for (const event of events) {
    expect(event.id).toMatch(AUDIT_ID);
    expect(event.object).toBe("audit_event");
  }
  const created = events.find((e) => e.action === "webhook.created")!;
  expect(created).toMatchObject({
    actor: { type: "key", id: adminKey.id },
    target: { type: "webhook_endpoint", id: endpoint.id },
    changes: { host: "93.184.216.34", description: "deploys", enabled: true },
  });
  expect(created.ip).toMatch(/127\.0\.0\.1$/);
  expect(events.find((e) => e.action === "webhook.updated")!.changes).toEqual({ enabled: { from: true, to: false } });
  const role = events.find((e) => e.action === "member.role_changed")!;
  expect(role).toMatchObject({
    actor: { type: "cli", id: "cli" },
    ip: null,
    changes: { email: people.viewer, role: { from: "viewer", to: "creator" }, sessions_ended: true },
  });
  expect(events.find((e) => e.action === "credit.granted")!.changes).toMatchObject({ usd: "5.00" });
  expect(events.find((e) => e.action === "key.revoked")!.target).toEqual({ type: "api_key", id: spare.id });
  const text = JSON.stringify(events);
  for (const never of [
    cliKey,
    adminKey.key,
    viewerKey.key,
    spare.key,
    secret.secret,
    "whsec_",
    "tok-e2e",
    "qwerty",
    "audit-pass-1",
  ])
    expect(text).not.toContain(never);

  // One by its ID; the admin's key reads the log too.
  expect(
    await expectOk(await request.get(`/v1/audit-events/${created.id}`, { headers: keyHeader(adminKey.key) })),
  ).toEqual(created);
  // The viewer's key (now a creator's) is refused, naming the role.
  await expectError(
    await request.get("/v1/audit-events", { headers: keyHeader(viewerKey.key) }),
    403,
    "permission_denied",
    {
      message: /is a creator in this workspace; to read the audit log takes admin or owner/,
    },
  );
  await expectError(
    await request.get("/v1/audit-events", { headers: keyHeader(readOnly.key) }),
    403,
    "permission_denied",
    {
      message: /"workspace:read"/,
    },
  );

  // Filters, and paging through each.
  const ids = (keep: (e: AuditEvent) => boolean) => events.filter(keep).map((e) => e.id);
  const after = events.find((e) => e.action === "webhook.created")!.created_at;
  for (const [query, keep] of [
    ["", () => true],
    ["&action=webhook", (e: AuditEvent) => e.action.startsWith("webhook.")],
    ["&action=member.role_changed", (e: AuditEvent) => e.action === "member.role_changed"],
    ["&actor=cli", (e: AuditEvent) => e.actor.type === "cli"],
    [`&actor=${adminKey.id}`, (e: AuditEvent) => e.actor.id === adminKey.id],
    ["&actor=cli&action=key", (e: AuditEvent) => e.actor.type === "cli" && e.action.startsWith("key.")],
    [`&from=${encodeURIComponent(after)}`, (e: AuditEvent) => e.created_at >= after],
    [`&to=${encodeURIComponent(after)}`, (e: AuditEvent) => e.created_at <= after],
    [
      `&from=${after.slice(0, 10)}&to=${after.slice(0, 10)}`,
      (e: AuditEvent) => e.created_at.startsWith(after.slice(0, 10)),
    ],
    ["&from=2999-01-01", () => false],
  ] as const) {
    expect(
      (await all(request, cliKey, query, 3)).map((e) => e.id),
      query,
    ).toEqual(ids(keep));
  }
  const first = await list(request, cliKey, "?limit=2&action=member");
  await expectError(
    await request.get(`/v1/audit-events?limit=2&action=key&cursor=${encodeURIComponent(first.next_cursor!)}`, {
      headers: keyHeader(cliKey),
    }),
    400,
    "invalid_parameter",
    { param: "cursor" },
  );
});

// On both stores: a malformed value must fail in our checks, never in PostgreSQL's or SQLite's.
for (const spec of [SERVERS.main, SERVERS.runsPostgresIdle]) {
  test(`another workspace's events are neither listed nor found, none can be changed, and bad parameters answer 400 (${spec.pgDatabase ? "postgres" : "sqlite"})`, async ({
    request,
  }) => {
    const base = spec.baseURL;
    const a = createWorkspaceWithKey({ name: uniqueName("audit-a") }, spec);
    const b = createWorkspaceWithKey({ name: uniqueName("audit-b") }, spec);
    const adminOfB = `${uniqueName("admin-b")}@example.com`;
    admin(
      ["user", "create", "--email", adminOfB, "--password", "audit-pass-1", "--workspace", b.id, "--role", "admin"],
      spec,
    );
    const bAdminKey = admin<CreatedKey>(["key", "create", "--workspace", b.id, "--member", adminOfB], spec);
    const ofA = (await list(request, a.api_key.key, "", base)).data;
    expect(ofA.map((e) => e.action).sort()).toEqual(["key.created", "workspace.created"]);

    for (const key of [b.api_key.key, bAdminKey.key]) {
      const ofB = await list(request, key, "?limit=100", base);
      expect(ofB.data.map((e) => e.id)).not.toEqual(expect.arrayContaining([ofA[0]!.id]));
      expect(JSON.stringify(ofB)).not.toContain(a.id);
      for (const event of ofA)
        await expectError(
          await request.get(`${base}/v1/audit-events/${event.id}`, { headers: keyHeader(key) }),
          404,
          "resource_not_found",
        );
      // Filtering on A's key finds nothing of it from B.
      expect((await list(request, key, `?actor=${a.api_key.id}`, base)).data).toEqual([]);
    }
    // No way to change or delete one, A's own key included.
    for (const method of ["DELETE", "PATCH", "PUT", "POST"]) {
      const res = await request.fetch(`${base}/v1/audit-events/${ofA[0]!.id}`, {
        method,
        headers: { ...keyHeader(a.api_key.key), "content-type": "application/json" },
        data: method === "DELETE" ? undefined : {},
      });
      await expectError(res, 405, "method_not_allowed");
    }
    await expectError(
      await request.post(`${base}/v1/audit-events`, { headers: keyHeader(a.api_key.key), data: {} }),
      405,
      "method_not_allowed",
    );
    expect((await list(request, a.api_key.key, "", base)).data).toEqual(ofA);

    const bad: [string, string][] = [
      ["action=constructor", "action"],
      ["action=__proto__", "action"],
      ["action=member.nope", "action"],
      [`action=${"x".repeat(5000)}`, "action"],
      ["action=%00", "action"],
      ["action=member.invited%00", "action"],
      ["actor=bob", "actor"],
      ["actor=toString", "actor"],
      [`actor=usr_${"a".repeat(5000)}`, "actor"],
      ["from=2026-02-30", "from"],
      ["from=yesterday", "from"],
      ["from=2026-05-01T10:00:00", "from"],
      ["to=2026-05-01T25:00:00Z", "to"],
      [`to=${"9".repeat(5000)}`, "to"],
      ["from=2026-05-05&to=2026-05-04", "from"],
      ["cursor=nope", "cursor"],
      [`cursor=${"a".repeat(600)}`, "cursor"],
      ["limit=0", "limit"],
      ["limit=1000", "limit"],
      ["limit=ten", "limit"],
      ["constructor=1", "constructor"],
      ["__proto__=1", "__proto__"],
      ["hasOwnProperty=1", "hasOwnProperty"],
      ["action=key&action=member", "action"],
    ];
    for (const [query, param] of bad) {
      await expectError(
        await request.get(`${base}/v1/audit-events?${query}`, { headers: keyHeader(a.api_key.key) }),
        400,
        "invalid_parameter",
        { param },
      );
    }
    for (const id of ["aud_nothing", "aud_%00", `aud_${"x".repeat(2000)}`, "constructor"])
      await expectError(
        await request.get(`${base}/v1/audit-events/${id}`, { headers: keyHeader(a.api_key.key) }),
        404,
        "resource_not_found",
      );
  });
}
