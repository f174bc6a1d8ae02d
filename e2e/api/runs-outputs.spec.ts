// Outputs of a succeeded run (SPEC.md "Output item", "POST …/outputs/{index}/file", "Limits"):
// image items with type, a signed url that needs no key, expires_at ~24 h after the read,
// content_type, width and height (checked against the bytes); Range requests; a changed link
// → 403 permission_denied; keeping an output as a file (again → the same file) and index errors.
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "./fixtures";
import { signBlobLink } from "../../lib/blobs/links";
import { expectError, expectOk, ISO_MS } from "./helpers";
import {
  expectLedgerIdentity,
  expectNotFound,
  FILE_ID,
  newTenant,
  PNG_SIGNATURE,
  pngSize,
  settle,
  STORES,
  type FileObject,
  type OutputItem,
} from "./runs-helpers";

const DAY_MS = 24 * 3600 * 1000;

/** The URL with one query parameter replaced (or removed when value is null). */
function withParam(url: string, name: string, value: string | null): string {
  const u = new URL(url);
  if (value === null) u.searchParams.delete(name);
  else u.searchParams.set(name, value);
  return u.toString();
}

function flipLast(text: string): string {
  return `${text.slice(0, -1)}${text.at(-1) === "A" ? "B" : "A"}`;
}

function expectOutputItem(item: OutputItem, readAt: number): void {
  expect(item.type).toBe("image");
  expect(item.url).toMatch(/\/v1\/blobs\/[^/?]+\?/);
  const url = new URL(item.url);
  expect([...url.searchParams.keys()].sort()).toEqual(["expires", "signature", "type"]);
  expect(url.searchParams.get("type")).toBe(item.content_type);
  expect(item.expires_at).toMatch(ISO_MS);
  // Valid 24 hours from the read (whole seconds in the link).
  expect(Number(url.searchParams.get("expires")) * 1000).toBe(Date.parse(item.expires_at));
  expect(Date.parse(item.expires_at)).toBeGreaterThan(readAt + DAY_MS - 120_000);
  expect(Date.parse(item.expires_at)).toBeLessThan(readAt + DAY_MS + 120_000);
  expect(Number.isInteger(item.width)).toBe(true);
  expect(Number.isInteger(item.height)).toBe(true);
}

for (const store of STORES) {
  test.describe(`[${store.name}] outputs and their links`, () => {
    test("image outputs: fields, and the link serves the bytes without a key", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create(
        { model: "atelier/gradient", input: { prompt: "ocean dusk", num_images: 2, resolution: "hd", aspect_ratio: "16:9" } },
        { prefer: "wait=30" },
      );
      expect(gen.status).toBe("succeeded");
      const readAt = Date.now();
      const run = await api.read(gen.id);
      expect(run.output).toHaveLength(2);
      const bodies: Buffer[] = [];
      for (const item of run.output) {
        expectOutputItem(item, readAt);
        expect(item).toMatchObject({ content_type: "image/png", width: 1024, height: 576 });
        const res = await request.get(item.url); // no API key
        expect(res.status()).toBe(200);
        const body = await res.body();
        expect(res.headers()["content-type"]).toBe("image/png");
        expect(Number(res.headers()["content-length"])).toBe(body.length);
        expect(res.headers()["accept-ranges"]).toBe("bytes");
        expect(pngSize(body)).toEqual({ width: 1024, height: 576 });
        bodies.push(body);
      }
      expect(bodies[0]!.equals(bodies[1]!), "two images, two different pictures").toBe(false);

      // Each read signs fresh links (a second later → a later expiry), and the older link still works.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const later = await api.read(gen.id);
      expect(Date.parse(later.output[0]!.expires_at)).toBeGreaterThan(Date.parse(run.output[0]!.expires_at));
      expect(later.output[0]!.url).not.toBe(run.output[0]!.url);
      expect((await request.get(run.output[0]!.url)).status()).toBe(200);
      expect((await (await request.get(later.output[0]!.url)).body()).equals(bodies[0]!)).toBe(true);
      await expectLedgerIdentity(tenant);
    });

    test("formats and presets: JPEG and WebP bytes, a 3:4 poster", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const jpeg = (await api.create({ model: "atelier/gradient", input: { prompt: "x", format: "jpeg", aspect_ratio: "9:16" } }, { prefer: "wait=30" })).gen;
      expect(jpeg.output[0]).toMatchObject({ content_type: "image/jpeg", width: 288, height: 512 });
      const jpegBytes = await (await request.get(jpeg.output[0]!.url)).body();
      expect([...jpegBytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);

      const webp = (await api.create({ model: "atelier/gradient", input: { prompt: "x", format: "webp" } }, { prefer: "wait=30" })).gen;
      expect(webp.output[0]).toMatchObject({ content_type: "image/webp", width: 512, height: 512 });
      const webpRes = await request.get(webp.output[0]!.url);
      expect(webpRes.headers()["content-type"]).toBe("image/webp");
      const webpBytes = await webpRes.body();
      expect(webpBytes.subarray(0, 4).toString("ascii")).toBe("RIFF");
      expect(webpBytes.subarray(8, 12).toString("ascii")).toBe("WEBP");

      const poster = (await api.create({ model: "atelier/gradient-poster@1", input: { prompt: "x", title: "Hello" } }, { prefer: "wait=30" })).gen;
      expect(poster.output).toHaveLength(1);
      expect(poster.output[0]).toMatchObject({ type: "image", content_type: "image/png", width: 576, height: 768 });
      expect(pngSize(await (await request.get(poster.output[0]!.url)).body())).toEqual({ width: 576, height: 768 });
      await settle(api);
      await expectLedgerIdentity(tenant);
    });

    test("Range requests → 206 with Content-Range; unsatisfiable → 416", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { gen } = await tenant.api.create({ model: "atelier/gradient", input: { prompt: "ranges" } }, { prefer: "wait=30" });
      const url = gen.output[0]!.url;
      const whole = await (await request.get(url)).body();
      const size = whole.length;

      const head = await request.get(url, { headers: { range: "bytes=0-7" } });
      expect(head.status()).toBe(206);
      expect(head.headers()["content-range"]).toBe(`bytes 0-7/${size}`);
      expect(head.headers()["content-length"]).toBe("8");
      expect(head.headers()["content-type"]).toBe("image/png");
      expect((await head.body()).equals(PNG_SIGNATURE)).toBe(true);

      const tail = await request.get(url, { headers: { range: "bytes=-12" } });
      expect(tail.status()).toBe(206);
      expect(tail.headers()["content-range"]).toBe(`bytes ${size - 12}-${size - 1}/${size}`);
      expect((await tail.body()).equals(whole.subarray(size - 12))).toBe(true);

      const rest = await request.get(url, { headers: { range: "bytes=100-" } });
      expect(rest.status()).toBe(206);
      expect(rest.headers()["content-range"]).toBe(`bytes 100-${size - 1}/${size}`);
      expect((await rest.body()).equals(whole.subarray(100))).toBe(true);

      const beyond = await request.get(url, { headers: { range: `bytes=${size}-` } });
      expect(beyond.status()).toBe(416);
      expect(beyond.headers()["content-range"]).toBe(`bytes */${size}`);
    });

    test("a changed or cut link → 403 permission_denied", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { gen } = await tenant.api.create({ model: "atelier/gradient", input: { prompt: "tamper", num_images: 2 } }, { prefer: "wait=30" });
      const [a, b] = gen.output as [OutputItem, OutputItem];
      const u = new URL(a.url);
      const expires = u.searchParams.get("expires")!;
      const keyB = new URL(b.url).pathname.split("/").pop()!;
      const tampered = [
        withParam(a.url, "signature", flipLast(u.searchParams.get("signature")!)),
        withParam(a.url, "signature", null),
        withParam(a.url, "type", "image/jpeg"),
        withParam(a.url, "type", null),
        withParam(a.url, "expires", String(Number(expires) + 3600)),
        withParam(a.url, "expires", null),
        a.url.replace(u.pathname, `/v1/blobs/${keyB}`),
      ];
      for (const url of tampered) await expectError(await request.get(url), 403, "permission_denied");
      // Untouched, both links work.
      expect((await request.get(a.url)).status()).toBe(200);
      expect((await request.get(b.url)).status()).toBe(200);
    });

    test("a link signed with a filename answers as a download under that name; the name is covered by the signature", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { gen } = await tenant.api.create({ model: "atelier/gradient", input: { prompt: "named download" } }, { prefer: "wait=30" });
      const [a] = gen.output as [OutputItem];
      // The API's own links carry no name and answer inline.
      const plain = await request.get(a.url);
      expect(plain.status()).toBe(200);
      expect(plain.headers()["content-disposition"]).toBeUndefined();
      // The studio signs download links with the server's key (DATA_DIR/secret-key).
      const secret = readFileSync(path.join(store.busy.dataDir, "secret-key"), "utf8").trim();
      const u = new URL(a.url);
      const key = u.pathname.split("/").pop()!;
      const filename = `gradient-${gen.id}-1.png`;
      const named = signBlobLink({ secret, baseUrl: u.origin, filename }, key, a.content_type).url;
      const answer = await request.get(named);
      expect(answer.status()).toBe(200);
      expect(answer.headers()["content-disposition"]).toBe(`attachment; filename="${filename}"`);
      expect(answer.headers()["content-type"]).toBe("image/png");
      expect(Buffer.compare(await answer.body(), await plain.body())).toBe(0);
      // Another name, a name added to a plain link, or a dropped name: refused.
      await expectError(await request.get(withParam(named, "filename", "other.png")), 403, "permission_denied");
      await expectError(await request.get(withParam(named, "filename", 'x".png')), 403, "permission_denied");
      await expectError(await request.get(withParam(a.url, "filename", filename)), 403, "permission_denied");
      await expectError(await request.get(withParam(named, "filename", null)), 403, "permission_denied");
    });

    test("keep an output as a file: 201 File; again → the same file; bytes are the output's", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create({ model: "atelier/gradient", input: { prompt: "keep me", num_images: 2 } }, { prefer: "wait=30" });
      expect(gen.status).toBe("succeeded");

      const res = await api.post(`/v1/generations/${gen.id}/outputs/0/file`);
      const file = await expectOk<FileObject>(res, 201);
      expect(file.id).toMatch(FILE_ID);
      expect(file).toMatchObject({ object: "file", content_type: "image/png", width: 512, height: 512, duration: null });
      expect(file.created_at).toMatch(ISO_MS);
      expect(file.expires_at).toMatch(ISO_MS);
      expect(typeof file.filename === "string" || file.filename === null).toBe(true);
      const output = await (await request.get(gen.output[0]!.url)).body();
      expect(file.bytes).toBe(output.length);
      const kept = await request.get(file.url); // no key
      expect(kept.status()).toBe(200);
      expect(kept.headers()["content-type"]).toBe("image/png");
      expect((await kept.body()).equals(output)).toBe(true);

      const again = await expectOk<FileObject>(await api.post(`/v1/generations/${gen.id}/outputs/0/file`), 201);
      expect(again.id).toBe(file.id);
      const second = await expectOk<FileObject>(await api.post(`/v1/generations/${gen.id}/outputs/1/file`), 201);
      expect(second.id).not.toBe(file.id);

      const read = await expectOk<FileObject>(await api.get(`/v1/files/${file.id}`));
      expect({ ...read, url: "", expires_at: "" }).toEqual({ ...file, url: "", expires_at: "" });
      const listed = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(listed.data.map((f) => f.id).sort()).toEqual([file.id, second.id].sort());
      // Keeping is free.
      await expectLedgerIdentity(tenant);
    });

    test("concurrent keeps of one output make one file", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create({ model: "atelier/gradient", input: { prompt: "race to keep" } }, { prefer: "wait=30" });
      const answers = await Promise.all(Array.from({ length: 8 }, () => api.post(`/v1/generations/${gen.id}/outputs/0/file`)));
      const files = await Promise.all(answers.map((res) => expectOk<FileObject>(res, 201)));
      expect(new Set(files.map((f) => f.id)).size).toBe(1);
      const listed = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(listed.data).toHaveLength(1);
    });

    test("index out of range or not a number → 400 param index", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create({ model: "atelier/gradient", input: { prompt: "one output" } }, { prefer: "wait=30" });
      expect(gen.output).toHaveLength(1);
      for (const index of ["1", "63", "64", "abc", "-1", "1.5", "999"]) {
        await expectError(await api.post(`/v1/generations/${gen.id}/outputs/${index}/file`), 400, "invalid_parameter", { param: "index" });
      }
      const listed = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(listed.data).toEqual([]);
    });

    test("a sound output cannot be kept as a file → 400 param index, nothing kept", async ({ request }) => {
      test.setTimeout(60_000);
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create({ model: "atelier/music", input: { prompt: "calm rain", duration: 1, seed: 3 } }, { prefer: "wait=45" });
      expect(gen.status).toBe("succeeded");
      expect(gen.output[0]!.type).toBe("audio");
      await expectError(await api.post(`/v1/generations/${gen.id}/outputs/0/file`), 400, "invalid_parameter", { param: "index" });
      const listed = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(listed.data).toEqual([]);
    });

    test("a run that has not succeeded has no output to keep → 400; another workspace's run → 404", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const { api } = tenant;
      const { gen } = await api.create({ model: "atelier/gradient", input: { prompt: "still queued" } });
      expect(gen.output).toEqual([]);
      const queued = await api.post(`/v1/generations/${gen.id}/outputs/0/file`);
      expect(queued.status()).toBe(400);
      expect(((await queued.json()) as { error: { code: string } }).error.code).toBe("invalid_parameter");
      await expectOk(await api.post(`/v1/generations/${gen.id}/cancel`));
      const canceled = await api.post(`/v1/generations/${gen.id}/outputs/0/file`);
      expect(canceled.status()).toBe(400);

      const stranger = newTenant(request, store.idle, "1");
      await expectNotFound(await stranger.api.post(`/v1/generations/${gen.id}/outputs/0/file`));
    });
  });
}
