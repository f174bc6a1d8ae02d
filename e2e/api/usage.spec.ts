// GET /v1/usage over HTTP on both stores: after a mixed load (a member's key and the CLI's, two
// models, succeeded and failed runs), each grouping adds up to what the runs list says, the total
// charge is the ledger's (available + held + charged = granted), CSV gives the same rows, another
// workspace's runs never show, and bad input is a 400 naming the field.
import { admin, uniqueName } from "./admin";
import { expect, test } from "./fixtures";
import { expectError, expectOk, keyHeader } from "./helpers";
import {
  Api,
  expectLedgerIdentity,
  makePng,
  micros,
  newTenant,
  settle,
  STORES,
  storeTitle,
  type FileObject,
  type Generation,
} from "./runs-helpers";

interface Row {
  runs: number;
  succeeded: number;
  failed: number;
  canceled: number;
  cost_usd: string;
  [group: string]: string | number | null;
}
interface Usage {
  object: "usage";
  from: string;
  to: string;
  group_by: string;
  data: Row[];
  total: { runs: number; cost_usd: string };
}

const today = () => new Date().toISOString().slice(0, 10);

/** Runs grouped as the API should group them, from the runs list itself. */
function groupRuns(runs: Generation[], groupOf: (run: Generation) => string | null) {
  const groups = new Map<string | null, { runs: number; succeeded: number; failed: number; canceled: number; micros: number }>(); // prettier-ignore
  for (const run of runs) {
    const g = groups.get(groupOf(run)) ?? { runs: 0, succeeded: 0, failed: 0, canceled: 0, micros: 0 };
    g.runs++;
    if (run.status === "succeeded" || run.status === "failed" || run.status === "canceled") g[run.status]++;
    if (run.usage.cost_usd !== null) g.micros += micros(run.usage.cost_usd);
    groups.set(groupOf(run), g);
  }
  return groups;
}

function expectRows(usage: Usage, field: string, want: ReturnType<typeof groupRuns>): void {
  expect(usage.data.map((r) => r[field]).sort()).toEqual([...want.keys()].sort());
  for (const row of usage.data) {
    const w = want.get(row[field] as string | null)!;
    expect(row, `${field} ${String(row[field])}`).toMatchObject({
      runs: w.runs,
      succeeded: w.succeeded,
      failed: w.failed,
      canceled: w.canceled,
    });
    expect(micros(row.cost_usd)).toBe(w.micros);
  }
}

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] usage`, () => {
    test("adds up a mixed load in every grouping, equals the ledger, and comes as CSV", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "2", "usage");
      const { api } = tenant;
      const email = `${uniqueName("usage-member")}@example.com`;
      admin(["user", "create", "--email", email, "--password", "member-pass-1", "--workspace", tenant.workspaceId, "--role", "admin"], store.busy); // prettier-ignore
      const made = admin<{ id: string; key: string; created_by: string }>(["key", "create", "--workspace", tenant.workspaceId, "--member", email, "--name", "member, key"], store.busy); // prettier-ignore
      const memberApi = new Api(request, store.busy, made.key);
      // Another workspace's runs on the same server, at the same time.
      const other = newTenant(request, store.busy, "1", "usage-other");
      await other.api.create({ model: "atelier/gradient", input: { prompt: "not theirs" } });

      for (const prompt of ["one", "two"]) await api.create({ model: "atelier/gradient", input: { prompt } });
      const byMembersKey = new Set<string>();
      for (const body of [
        { model: "atelier/gradient", input: { prompt: "three", num_images: 2 } },
        { model: "atelier/artwork", input: { prompt: "four" } },
      ])
        byMembersKey.add((await memberApi.create(body)).gen.id);
      // atelier/upscale refuses results longer than 8192 pixels (4100 × 2): a failed run, charged nothing.
      const file = await expectOk<FileObject>(
        await request.post(api.url("/v1/files"), {
          headers: api.headers({ "content-type": "image/png" }),
          data: makePng(4100, 4),
        }),
        201,
      );
      await api.create({ model: "atelier/upscale", input: { image: file.id, scale: 2 } });
      const runs = await settle(api);
      await settle(other.api);
      expect(runs.map((r) => r.status).sort()).toEqual(["failed", "succeeded", "succeeded", "succeeded", "succeeded"]);
      const ledger = await expectLedgerIdentity(tenant);

      const read = async (query: string) => expectOk<Usage>(await api.get(`/v1/usage?${query}`));
      const day = today();
      for (const [groupBy, groupOf] of [
        ["day", (r: Generation) => r.created_at.slice(0, 10)],
        ["model", (r: Generation) => r.model],
        ["source", (r: Generation) => r.source],
        ["member", (r: Generation) => (byMembersKey.has(r.id) ? made.created_by : null)],
      ] as const) {
        const usage = await read(`group_by=${groupBy}&from=${day}&to=${day}`);
        expect(usage).toMatchObject({ object: "usage", from: day, to: day, group_by: groupBy });
        expectRows(usage, groupBy, groupRuns(runs, groupOf));
        // The identity: what it says was charged is what the ledger charged, no more, no less.
        expect(usage.total.runs).toBe(runs.length);
        expect(micros(usage.total.cost_usd)).toBe(ledger.charged);
      }
      const byMember = await read("group_by=member");
      expect(byMember.data).toContainEqual(expect.objectContaining({ member: made.created_by, email, runs: 2 }));
      const byKey = await read("group_by=key");
      expect(byKey.data.map((r) => r.name).sort()).toEqual(["API key", "member, key"].sort());
      const gradients = await read("group_by=model&model=atelier/gradient");
      expect(gradients.data).toHaveLength(1);
      expect(gradients.total.runs).toBe(3);

      // CSV: the same rows, a header first, the comma in the key's name quoted.
      const csv = await api.get("/v1/usage?group_by=key", { accept: "text/csv" });
      expect(csv.status()).toBe(200);
      expect(csv.headers()["content-type"]).toBe("text/csv; charset=utf-8");
      const lines = (await csv.text()).split("\r\n");
      expect(lines[0]).toBe("key,name,runs,succeeded,failed,canceled,cost_usd");
      expect(lines.slice(1, -1)).toEqual(
        byKey.data.map(
          (r) =>
          [r.key, r.name === "member, key" ? `"${r.name}"` : r.name, r.runs, r.succeeded, r.failed, r.canceled, r.cost_usd].join(","), // prettier-ignore
        ),
      );
      expect(lines.at(-1)).toBe("");

      // The other workspace sees its own run only.
      const theirs = await expectOk<Usage>(await other.api.get("/v1/usage?group_by=key"));
      expect(theirs.total.runs).toBe(1);
    });

    test("spend is for owners, admins and the CLI's keys; bad input is a 400 naming the field", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "0", "usage-input");
      const { api } = tenant;
      const email = `${uniqueName("usage-creator")}@example.com`;
      admin(["user", "create", "--email", email, "--password", "member-pass-1", "--workspace", tenant.workspaceId, "--role", "creator"], store.busy); // prettier-ignore
      const creatorKey = admin<{ key: string }>(["key", "create", "--workspace", tenant.workspaceId, "--member", email], store.busy); // prettier-ignore
      await expectError(
        await request.get(api.url("/v1/usage"), { headers: keyHeader(creatorKey.key) }),
        403,
        "permission_denied",
        { message: /creator in this workspace; to read the workspace's usage and spend takes admin or owner/ },
      );
      const readOnly = admin<{ key: string }>(["key", "create", "--workspace", tenant.workspaceId, "--scopes", "generations:read"], store.busy); // prettier-ignore
      await expectError(
        await request.get(api.url("/v1/usage"), { headers: keyHeader(readOnly.key) }),
        403,
        "permission_denied",
      );

      const bad: Array<[string, string]> = [
        ["from=2026-03-05&to=2026-03-04", "from"],
        ["from=2025-03-02&to=2026-03-04", "to"],
        ["group_by=week", "group_by"],
        ["group_by=constructor", "group_by"],
        ["group_by=__proto__", "group_by"],
        ["from=2026-02-30", "from"],
        ["to=yesterday", "to"],
        ["to=2026-03-01%00", "to"],
        ["model=constructor", "model"],
        [`model=atelier/${"x".repeat(8000)}`, "model"],
        [`from=${"9".repeat(8000)}`, "from"],
        ["limit=10", "limit"],
      ];
      for (const [query, param] of bad) {
        const res = await api.get(`/v1/usage?${query}`);
        await expectError(res, 400, "invalid_parameter", { param });
      }
      // With CSV asked for, an error is still the JSON envelope.
      await expectError(await api.get("/v1/usage?group_by=week", { accept: "text/csv" }), 400, "invalid_parameter", {
        param: "group_by",
      });
    });
  });
}
