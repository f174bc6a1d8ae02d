// GET /v1/generations over 250 runs (docs/api.md, "Lists", "Limits"): newest first,
// cursor paging with limits 100/100/50, filters (a preset ID without version matches every
// version; status and source lists), signed cursors bound to their filters, limit bounds, and
// pages that stay right while new runs are created between reads. On a server without workers,
// so every run stays queued until a test cancels it.
import { checkedContext, expect, test, type APIRequestContext } from "./fixtures";
import { expectError, expectOk } from "./helpers";
import {
  Api,
  CURSOR,
  expectLedgerIdentity,
  newTenant,
  STORES,
  storeTitle,
  type Batch,
  type Generation,
  type GenerationList,
  type Tenant,
} from "./runs-helpers";

/** Item i of a batch: a mix of models, presets with and without version, and a deprecated model. */
function item(i: number, batch: number): { model: string; input: Record<string, unknown> } {
  const prompt = `page ${batch}-${i}`;
  switch (i % 6) {
    case 0:
      return { model: "atelier/gradient", input: { prompt } };
    case 1:
      return { model: "atelier/gradient", input: { prompt, resolution: "hd", num_images: 2 } };
    case 2:
      return { model: "atelier/gradient-poster@1", input: { prompt, title: "One" } };
    case 3:
      return { model: "atelier/gradient-poster@2", input: { prompt, title: "Two" } };
    case 4:
      return { model: "atelier/gradient-poster", input: { prompt, title: "Latest" } };
    default:
      return { model: "atelier/gradient-classic", input: { prompt } };
  }
}

function ids(runs: Generation[]): string[] {
  return runs.map((r) => r.id);
}

/** created_at never increases down the list. */
function expectNewestFirst(runs: Generation[]): void {
  for (let i = 1; i < runs.length; i++) {
    expect(runs[i]!.created_at <= runs[i - 1]!.created_at, `${runs[i]!.id} after ${runs[i - 1]!.id}`).toBe(true);
  }
}

function tamper(cursor: string, where: "signature" | "payload"): string {
  const [payload, signature] = cursor.split(".") as [string, string];
  if (where === "signature") {
    const last = signature.at(-1) === "A" ? "B" : "A";
    return `${payload}.${signature.slice(0, -1)}${last}`;
  }
  // Change the payload (it is opaque: one byte of it), encode again, keep the signature.
  const bytes = Buffer.from(payload, "base64url");
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
  const changed = bytes.toString("base64url");
  expect(changed).not.toBe(payload);
  return `${changed}.${signature}`;
}

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] listing and paging 250 runs`, () => {
    let context: APIRequestContext;
    let tenant: Tenant;
    let api: Api;
    /** The runs in creation order, batch by batch. */
    const batches: Generation[][] = [];
    let all: Generation[] = [];

    test.beforeAll(async ({ playwright }) => {
      test.setTimeout(120_000);
      context = checkedContext(await playwright.request.newContext());
      tenant = newTenant(context, store.idle, "10", "paging");
      api = tenant.api;
      for (let b = 0; b < 5; b++) {
        const body = { requests: Array.from({ length: 50 }, (_, i) => item(i, b)) };
        const batch = await expectOk<Batch>(await api.post("/v1/batches", body), 201);
        expect(batch.data).toHaveLength(50);
        batches.push(batch.data);
      }
      all = batches.flat();
    });

    test.afterAll(async () => {
      await context?.dispose();
    });

    test("limit 100, 100, 50: every run once, newest first, has_more false at the end", async () => {
      const first = await api.list({ limit: "100" });
      expect(first.object).toBe("list");
      expect(first.url).toBe("/v1/generations");
      expect(first.data).toHaveLength(100);
      expect(first.has_more).toBe(true);
      expect(first.next_cursor).toMatch(CURSOR);
      expect(first.next_cursor!.length).toBeLessThanOrEqual(512);

      const second = await api.list({ limit: "100", cursor: first.next_cursor! });
      expect(second.data).toHaveLength(100);
      expect(second.has_more).toBe(true);
      expect(second.next_cursor).toMatch(CURSOR);

      const third = await api.list({ limit: "100", cursor: second.next_cursor! });
      expect(third.data).toHaveLength(50);
      expect(third.has_more).toBe(false);
      expect(third.next_cursor).toBeNull();

      const listed = [...first.data, ...second.data, ...third.data];
      expect(new Set(ids(listed)).size).toBe(250);
      expect(ids(listed).sort()).toEqual(ids(all).sort());
      expectNewestFirst(listed);
      // Batches were created one after another: the newest batch fills the first 50 places.
      for (let b = 0; b < 5; b++) {
        expect(ids(listed.slice(b * 50, b * 50 + 50)).sort(), `places ${b * 50}–${b * 50 + 49}`).toEqual(
          ids(batches[4 - b]!).sort(),
        );
      }
      // Default page size is 50; limit=1 and limit=100 are the bounds.
      expect((await api.list()).data).toHaveLength(50);
      expect(ids((await api.list({ limit: "1" })).data)).toEqual([listed[0]!.id]);
      await expectLedgerIdentity(tenant);
    });

    test("model filter: a preset ID without version matches every version", async () => {
      const count = (f: (r: Generation) => boolean) => all.filter(f).length;
      const posters = await api.listAll({ model: "atelier/gradient-poster" });
      expect(posters).toHaveLength(count((r) => r.model.startsWith("atelier/gradient-poster@")));
      expect(new Set(posters.map((r) => r.model))).toEqual(
        new Set(["atelier/gradient-poster@1", "atelier/gradient-poster@2"]),
      );
      expectNewestFirst(posters);

      const v1 = await api.listAll({ model: "atelier/gradient-poster@1" });
      expect(v1.length).toBe(count((r) => r.model === "atelier/gradient-poster@1"));
      expect(v1.length).toBeGreaterThan(0);
      for (const r of v1) expect(r.model).toBe("atelier/gradient-poster@1");
      // An unversioned request ran the latest version, @2.
      const v2 = await api.listAll({ model: "atelier/gradient-poster@2" });
      expect(v2.length).toBe(count((r) => r.model === "atelier/gradient-poster@2"));
      expect(v1.length + v2.length).toBe(posters.length);

      const gradient = await api.listAll({ model: "atelier/gradient" });
      expect(gradient.length).toBe(count((r) => r.model === "atelier/gradient"));
      for (const r of gradient) expect(r.model).toBe("atelier/gradient");
      const classic = await api.listAll({ model: "atelier/gradient-classic" });
      expect(classic.length).toBe(count((r) => r.model === "atelier/gradient-classic"));
      expect(gradient.length + posters.length + classic.length).toBe(250);
      expect((await api.list({ model: "atelier/upscale" })).data).toEqual([]);

      // Paging a filtered list with small pages visits each match once.
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: GenerationList = await api.list({
          model: "atelier/gradient-poster",
          limit: "30",
          ...(cursor ? { cursor } : {}),
        });
        for (const r of page.data) expect(r.model).toMatch(/^atelier\/gradient-poster@[12]$/);
        seen.push(...ids(page.data));
        cursor = page.has_more ? page.next_cursor : null;
      } while (cursor);
      expect(seen.sort()).toEqual(ids(posters).sort());

      await expectError(await api.get("/v1/generations?model=Not%20A%20Model"), 400, "invalid_parameter", {
        param: "model",
      });
      await expectError(await api.get(`/v1/generations?model=atelier/${"x".repeat(100)}`), 400, "invalid_parameter", {
        param: "model",
      });
    });

    test("a changed cursor → 400 param cursor", async () => {
      const first = await api.list({ limit: "10" });
      const cursor = first.next_cursor!;
      const bad = [
        tamper(cursor, "signature"),
        tamper(cursor, "payload"),
        cursor.split(".")[0]!,
        `${cursor}.x`,
        "x".repeat(513),
        "",
        "not-a-cursor",
      ];
      for (const c of bad) {
        await expectError(
          await api.get(`/v1/generations?limit=10&cursor=${encodeURIComponent(c)}`),
          400,
          "invalid_parameter",
          { param: "cursor" },
        );
      }
      // The untouched cursor still works.
      const second = await api.list({ limit: "10", cursor });
      expect(second.data).toHaveLength(10);
      expect(ids(second.data).some((id) => ids(first.data).includes(id))).toBe(false);
    });

    test("a cursor sent with other filters → 400 param cursor; another limit is fine", async () => {
      const plain = await api.list({ limit: "10" });
      const filtered = await api.list({ limit: "10", model: "atelier/gradient-poster" });
      const queued = await api.list({ limit: "10", status: "queued" });
      const mismatches: Array<[string, Record<string, string>]> = [
        [plain.next_cursor!, { model: "atelier/gradient-poster" }],
        [plain.next_cursor!, { status: "queued" }],
        [plain.next_cursor!, { source: "api" }],
        [filtered.next_cursor!, {}],
        [filtered.next_cursor!, { model: "atelier/gradient-poster@1" }],
        [filtered.next_cursor!, { model: "atelier/gradient" }],
        [queued.next_cursor!, { status: "canceled" }],
        [queued.next_cursor!, { status: "queued", model: "atelier/gradient" }],
      ];
      for (const [cursor, filters] of mismatches) {
        const qs = new URLSearchParams({ limit: "10", ...filters, cursor });
        await expectError(await api.get(`/v1/generations?${qs}`), 400, "invalid_parameter", { param: "cursor" });
      }
      // The same filters with another page size are the same list.
      const next = await api.list({ limit: "25", model: "atelier/gradient-poster", cursor: filtered.next_cursor! });
      expect(next.data).toHaveLength(25);
      for (const r of next.data) expect(ids(filtered.data)).not.toContain(r.id);
    });

    test("limit is 1 to 100: 0, 101, abc, -1, 1.5 and empty → 400 param limit", async () => {
      for (const limit of ["0", "101", "abc", "-1", "1.5", "", "1000"]) {
        await expectError(
          await api.get(`/v1/generations?limit=${encodeURIComponent(limit)}`),
          400,
          "invalid_parameter",
          { param: "limit" },
        );
      }
      expect((await api.list({ limit: "100" })).data).toHaveLength(100);
    });

    test("pages stay right while new runs are created between reads", async () => {
      const before = await api.listAll();
      const first = await api.list({ limit: "100" });
      // New runs, one by one and in a batch, between the page reads.
      const fresh: string[] = [];
      for (let i = 0; i < 3; i++)
        fresh.push((await api.create({ model: "atelier/gradient", input: { prompt: `fresh ${i}` } })).gen.id);
      const second = await api.list({ limit: "100", cursor: first.next_cursor! });
      const batch = await expectOk<Batch>(
        await api.post("/v1/batches", { requests: [item(0, 9), item(2, 9), item(4, 9)] }),
        201,
      );
      fresh.push(...ids(batch.data));
      fresh.push(
        (await api.create({ model: "atelier/gradient-poster", input: { prompt: "fresh", title: "Late" } })).gen.id,
      );
      const rest: Generation[] = [];
      let cursor = second.has_more ? second.next_cursor : null;
      while (cursor) {
        const page: GenerationList = await api.list({ limit: "100", cursor });
        rest.push(...page.data);
        cursor = page.has_more ? page.next_cursor : null;
      }
      const paged = [...first.data, ...second.data, ...rest];
      // Nothing new leaks into later pages, nothing is listed twice, nothing is missed.
      for (const id of fresh) expect(ids(paged)).not.toContain(id);
      expect(new Set(ids(paged)).size).toBe(paged.length);
      expect(ids(paged)).toEqual(ids(before));
      // A fresh first page starts with the new runs.
      const top = await api.list({ limit: String(fresh.length) });
      expect(ids(top.data).sort()).toEqual([...fresh].sort());
      await expectLedgerIdentity(tenant);
    });

    test("status and source filters take comma lists", async () => {
      const total = (await api.listAll()).length;
      expect(total).toBeGreaterThanOrEqual(250);
      expect(await api.listAll({ status: "queued" })).toHaveLength(total);
      expect(await api.listAll({ status: "succeeded,failed,running" })).toHaveLength(0);
      expect(await api.listAll({ source: "api" })).toHaveLength(total);
      expect(await api.listAll({ source: "studio,mcp" })).toHaveLength(0);

      const toCancel = [all[0]!.id, all[100]!.id, all[249]!.id];
      for (const id of toCancel)
        expect((await expectOk<Generation>(await api.post(`/v1/generations/${id}/cancel`))).status).toBe("canceled");
      const canceled = await api.listAll({ status: "canceled" });
      expect(ids(canceled).sort()).toEqual([...toCancel].sort());
      expect(await api.listAll({ status: "queued" })).toHaveLength(total - 3);
      expect(await api.listAll({ status: "queued,canceled" })).toHaveLength(total);
      expect(await api.listAll({ status: "canceled", source: "api" })).toHaveLength(3);
      const canceledPosters = await api.listAll({ status: "canceled", model: "atelier/gradient-poster" });
      expect(ids(canceledPosters).sort()).toEqual(
        all
          .filter((r) => toCancel.includes(r.id) && r.model.startsWith("atelier/gradient-poster@"))
          .map((r) => r.id)
          .sort(),
      );

      await expectError(await api.get("/v1/generations?status=done"), 400, "invalid_parameter", { param: "status" });
      await expectError(await api.get("/v1/generations?status=queued,nope"), 400, "invalid_parameter", {
        param: "status",
      });
      await expectError(await api.get("/v1/generations?source=cli"), 400, "invalid_parameter", { param: "source" });
      await expectLedgerIdentity(tenant);
    });

    test("another workspace sees none of these runs", async ({ request }) => {
      const other = newTenant(request, store.idle, "1", "paging-other");
      const list = await other.api.list({ limit: "100" });
      expect(list.data).toEqual([]);
      expect(list.has_more).toBe(false);
      expect(list.next_cursor).toBeNull();
    });
  });
}
