// Outputs of a succeeded run (docs/api.md, "Output items", "Files", "Limits"):
// image items with type, a signed url that needs no key, expires_at ~24 h after the read,
// content_type, width and height (checked against the bytes); a video item with its poster and
// Range reads of the video; expired links refused; Range requests; a changed link → 403
// permission_denied; download names; keeping an output as a file (again → the same file) and
// index errors. On both blob stores: the links are the API's own /v1/blobs links on disk
// ([sqlite · disk]) and the bucket's presigned URLs on the bucket ([postgres · bucket]).
import { expect, test } from "./fixtures";
import { expectError, expectOk, ISO_MS } from "./helpers";
import {
  DAY_MS,
  expectBlobLink,
  expectBucketError,
  expectExpiredRefused,
  expectLedgerIdentity,
  expectNotFound,
  FILE_ID,
  linkReadAgo,
  linkTarget,
  namedDownloadLink,
  newTenant,
  PNG_SIGNATURE,
  pngSize,
  settle,
  STORES,
  storeTitle,
  type FileObject,
  type OutputItem,
} from "./runs-helpers";

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

/** A video output item, with a poster (docs/api.md, "Output items"). */
interface VideoItem extends OutputItem {
  duration: number;
  poster: { url: string; expires_at: string; width: number; height: number };
}

/** A short video of the built-in catalog (atelier/title-motion: a second or two here). */
const VIDEO = {
  model: "atelier/title-motion",
  input: { prompt: "ranges of a harbour at dusk", duration: 2, resolution: "480p" },
};

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] outputs and their links`, () => {
    test("image outputs: fields, and the link serves the bytes without a key", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create(
        {
          model: "atelier/gradient",
          input: { prompt: "ocean dusk", num_images: 2, resolution: "hd", aspect_ratio: "16:9" },
        },
        { prefer: "wait=30" },
      );
      expect(gen.status).toBe("succeeded");
      const run = await api.read(gen.id);
      const readAt = Date.now();
      expect(run.output).toHaveLength(2);
      const bodies: Buffer[] = [];
      const keys = new Set<string>();
      for (const item of run.output) {
        expect(Object.keys(item).sort()).toEqual(["content_type", "expires_at", "height", "type", "url", "width"]);
        expect(item).toMatchObject({ type: "image", content_type: "image/png", width: 1024, height: 576 });
        keys.add(expectBlobLink(store.busy, item, { contentType: item.content_type, readAt }).key);
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
      expect(keys.size, "two outputs, two blobs").toBe(2);

      // Each read signs fresh links (a second later → a later expiry), and the older link still works.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const later = await api.read(gen.id);
      const laterAt = Date.now();
      expect(Date.parse(later.output[0]!.expires_at)).toBeGreaterThan(Date.parse(run.output[0]!.expires_at));
      expect(later.output[0]!.url).not.toBe(run.output[0]!.url);
      expect(
        expectBlobLink(store.busy, later.output[0]!, { contentType: "image/png", readAt: laterAt }).key,
        "the same blob",
      ).toBe(linkTarget(store.busy, run.output[0]!.url).key);
      expect((await request.get(run.output[0]!.url)).status()).toBe(200);
      expect((await (await request.get(later.output[0]!.url)).body()).equals(bodies[0]!)).toBe(true);
      await expectLedgerIdentity(tenant);
    });

    test("formats and presets: JPEG and WebP bytes, a 3:4 poster", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const jpeg = (
        await api.create(
          { model: "atelier/gradient", input: { prompt: "x", format: "jpeg", aspect_ratio: "9:16" } },
          { prefer: "wait=30" },
        )
      ).gen;
      expect(jpeg.output[0]).toMatchObject({ content_type: "image/jpeg", width: 288, height: 512 });
      expectBlobLink(store.busy, jpeg.output[0]!, { contentType: "image/jpeg", readAt: Date.now() });
      const jpegRes = await request.get(jpeg.output[0]!.url);
      expect(jpegRes.headers()["content-type"]).toBe("image/jpeg");
      const jpegBytes = await jpegRes.body();
      expect([...jpegBytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);

      const webp = (
        await api.create({ model: "atelier/gradient", input: { prompt: "x", format: "webp" } }, { prefer: "wait=30" })
      ).gen;
      expect(webp.output[0]).toMatchObject({ content_type: "image/webp", width: 512, height: 512 });
      expectBlobLink(store.busy, webp.output[0]!, { contentType: "image/webp", readAt: Date.now() });
      const webpRes = await request.get(webp.output[0]!.url);
      expect(webpRes.headers()["content-type"]).toBe("image/webp");
      const webpBytes = await webpRes.body();
      expect(webpBytes.subarray(0, 4).toString("ascii")).toBe("RIFF");
      expect(webpBytes.subarray(8, 12).toString("ascii")).toBe("WEBP");

      const poster = (
        await api.create(
          { model: "atelier/gradient-poster@1", input: { prompt: "x", title: "Hello" } },
          { prefer: "wait=30" },
        )
      ).gen;
      expect(poster.output).toHaveLength(1);
      expect(poster.output[0]).toMatchObject({ type: "image", content_type: "image/png", width: 576, height: 768 });
      expectBlobLink(store.busy, poster.output[0]!, { contentType: "image/png", readAt: Date.now() });
      expect(pngSize(await (await request.get(poster.output[0]!.url)).body())).toEqual({ width: 576, height: 768 });
      await settle(api);
      await expectLedgerIdentity(tenant);
    });

    test("Range requests → 206 with Content-Range; unsatisfiable → 416", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { gen } = await tenant.api.create(
        { model: "atelier/gradient", input: { prompt: "ranges" } },
        { prefer: "wait=30" },
      );
      const url = gen.output[0]!.url;
      const whole = await (await request.get(url)).body();
      const size = whole.length;

      const head = await request.get(url, { headers: { range: "bytes=0-7" } });
      expect(head.status()).toBe(206);
      expect(head.headers()["content-range"]).toBe(`bytes 0-7/${size}`);
      expect(head.headers()["content-length"]).toBe("8");
      expect(head.headers()["content-type"]).toBe("image/png");
      expect((await head.body()).equals(PNG_SIGNATURE)).toBe(true);

      const middle = await request.get(url, { headers: { range: "bytes=100-199" } });
      expect(middle.status()).toBe(206);
      expect(middle.headers()["content-range"]).toBe(`bytes 100-199/${size}`);
      expect((await middle.body()).equals(whole.subarray(100, 200))).toBe(true);

      // A suffix range ("the last 12 bytes"): s3rver 3.7.1 reads "bytes=-12" as bytes 0-12 (a
      // real S3 answers the last 12), so only the API's own route is held to it.
      if (store.blobs === "disk") {
        const tail = await request.get(url, { headers: { range: "bytes=-12" } });
        expect(tail.status()).toBe(206);
        expect(tail.headers()["content-range"]).toBe(`bytes ${size - 12}-${size - 1}/${size}`);
        expect((await tail.body()).equals(whole.subarray(size - 12))).toBe(true);
      }

      const rest = await request.get(url, { headers: { range: "bytes=100-" } });
      expect(rest.status()).toBe(206);
      expect(rest.headers()["content-range"]).toBe(`bytes 100-${size - 1}/${size}`);
      expect((await rest.body()).equals(whole.subarray(100))).toBe(true);

      const beyond = await request.get(url, { headers: { range: `bytes=${size}-` } });
      expect(beyond.status()).toBe(416);
      if (store.blobs === "disk") expect(beyond.headers()["content-range"]).toBe(`bytes */${size}`);
      else await expectBucketError(beyond, 416, "InvalidRange");
    });

    test("a video output: its link and poster, and Range reads of the video → 206 with exactly those bytes", async ({
      request,
    }) => {
      test.setTimeout(90_000);
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create(VIDEO, { prefer: "wait=60" });
      const run = gen.status === "succeeded" ? gen : await api.waitFinal(gen.id);
      expect(run.status, JSON.stringify(run.error)).toBe("succeeded");
      const fresh = await api.read(run.id);
      const readAt = Date.now();
      expect(fresh.output).toHaveLength(1);
      const item = fresh.output[0] as VideoItem;
      expect(Object.keys(item).sort()).toEqual([
        "content_type",
        "duration",
        "expires_at",
        "height",
        "poster",
        "type",
        "url",
        "width",
      ]);
      expect(item).toMatchObject({ type: "video", content_type: "video/mp4" });
      expect(item.duration).toBeCloseTo(2, 1);
      const video = expectBlobLink(store.busy, item, { contentType: "video/mp4", readAt });

      // The poster: a picture of the video's size, behind a link of its own.
      expect(Object.keys(item.poster).sort()).toEqual(["expires_at", "height", "url", "width"]);
      expect(item.poster).toMatchObject({ width: item.width, height: item.height });
      const poster = expectBlobLink(store.busy, item.poster, { readAt });
      expect(poster.key, "the poster is a blob of its own").not.toBe(video.key);
      expect(poster.contentType).toMatch(/^image\/(png|jpeg|webp)$/);
      const posterRes = await request.get(item.poster.url);
      expect(posterRes.status()).toBe(200);
      expect(posterRes.headers()["content-type"]).toBe(poster.contentType);
      const posterBytes = await posterRes.body();
      if (poster.contentType === "image/png")
        expect(pngSize(posterBytes)).toEqual({ width: item.width, height: item.height });
      else expect(posterBytes.length).toBeGreaterThan(100);

      const wholeRes = await request.get(item.url);
      expect(wholeRes.status()).toBe(200);
      expect(wholeRes.headers()["content-type"]).toBe("video/mp4");
      expect(wholeRes.headers()["accept-ranges"]).toBe("bytes");
      const whole = await wholeRes.body();
      const size = whole.length;
      expect(Number(wholeRes.headers()["content-length"])).toBe(size);
      expect(whole.subarray(4, 8).toString("ascii"), "an MP4 (ftyp box first)").toBe("ftyp");
      expect(size).toBeGreaterThan(4096);

      // What a player asks for: the start, a piece in the middle, the rest from an offset.
      const mid = Math.floor(size / 2);
      for (const [range, start, end] of [
        ["bytes=0-1023", 0, 1023],
        [`bytes=${mid}-${mid + 4095}`, mid, mid + 4095],
        [`bytes=${size - 500}-`, size - 500, size - 1],
      ] as const) {
        const part = await request.get(item.url, { headers: { range } });
        expect(part.status(), range).toBe(206);
        expect(part.headers()["content-range"], range).toBe(`bytes ${start}-${end}/${size}`);
        expect(part.headers()["content-length"], range).toBe(String(end - start + 1));
        expect(part.headers()["content-type"], range).toBe("video/mp4");
        expect((await part.body()).equals(whole.subarray(start, end + 1)), `${range}: exactly those bytes`).toBe(true);
      }
      const beyond = await request.get(item.url, { headers: { range: `bytes=${size}-` } });
      expect(beyond.status()).toBe(416);
      await expectLedgerIdentity(tenant);
    });

    test("links expire: a link read 23 hours ago still works, one read two days ago is refused", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { gen } = await tenant.api.create(
        { model: "atelier/gradient", input: { prompt: "expiring" } },
        { prefer: "wait=30" },
      );
      const [a] = gen.output as [OutputItem];
      const bytes = await (await request.get(a.url)).body();
      // See linkReadAgo (runs-helpers.ts): on the bucket, X-Amz-Date moved back; s3rver checks the
      // expiry, though not the signature.
      const recent = await request.get(linkReadAgo(store.busy, a.url, 23 * 3600_000));
      expect(recent.status()).toBe(200);
      expect((await recent.body()).equals(bytes)).toBe(true);
      await expectExpiredRefused(store.busy, await request.get(linkReadAgo(store.busy, a.url, 2 * DAY_MS)));
      // A fresh read signs a fresh link.
      const again = await tenant.api.read(gen.id);
      expect((await (await request.get(again.output[0]!.url)).body()).equals(bytes)).toBe(true);
    });

    test("a changed or cut link → 403 permission_denied", async ({ request }) => {
      test.skip(
        store.blobs === "bucket",
        "s3rver verifies no SigV4 signatures; a real S3 refuses a changed presigned URL",
      );
      const tenant = newTenant(request, store.busy, "1");
      const { gen } = await tenant.api.create(
        { model: "atelier/gradient", input: { prompt: "tamper", num_images: 2 } },
        { prefer: "wait=30" },
      );
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

    test("a link made with a filename answers as a download under that name", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { gen } = await tenant.api.create(
        { model: "atelier/gradient", input: { prompt: "named download" } },
        { prefer: "wait=30" },
      );
      const [a] = gen.output as [OutputItem];
      // The API's own links carry no name and answer inline.
      const plain = await request.get(a.url);
      expect(plain.status()).toBe(200);
      expect(plain.headers()["content-disposition"]).toBeUndefined();
      // The studio's Download links (made here as the studio makes them; the name made safe: spaces → "-").
      const filename = `gradient-${gen.id}-1.png`;
      const named = await namedDownloadLink(store.busy, a, a.content_type, `gradient ${gen.id} 1.png`);
      const target = expectBlobLink(store.busy, named, { contentType: "image/png", readAt: Date.now(), filename });
      expect(target.key, "the output's blob").toBe(linkTarget(store.busy, a.url).key);
      const answer = await request.get(named.url);
      expect(answer.status()).toBe(200);
      expect(answer.headers()["content-disposition"]).toBe(`attachment; filename="${filename}"`);
      expect(answer.headers()["content-type"]).toBe("image/png");
      expect(Buffer.compare(await answer.body(), await plain.body())).toBe(0);
    });

    test("the download name is covered by the signature", async ({ request }) => {
      test.skip(
        store.blobs === "bucket",
        "s3rver verifies no SigV4 signatures; a real S3 refuses a changed presigned URL",
      );
      const tenant = newTenant(request, store.busy, "1");
      const { gen } = await tenant.api.create(
        { model: "atelier/gradient", input: { prompt: "named download" } },
        { prefer: "wait=30" },
      );
      const [a] = gen.output as [OutputItem];
      const filename = `gradient-${gen.id}-1.png`;
      const named = (await namedDownloadLink(store.busy, a, a.content_type, filename)).url;
      expect((await request.get(named)).status()).toBe(200);
      // Another name, a name added to a plain link, or a dropped name: refused.
      await expectError(await request.get(withParam(named, "filename", "other.png")), 403, "permission_denied");
      await expectError(await request.get(withParam(named, "filename", 'x".png')), 403, "permission_denied");
      await expectError(await request.get(withParam(a.url, "filename", filename)), 403, "permission_denied");
      await expectError(await request.get(withParam(named, "filename", null)), 403, "permission_denied");
    });

    test("keep an output as a file: 201 File; again → the same file; bytes are the output's", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create(
        { model: "atelier/gradient", input: { prompt: "keep me", num_images: 2 } },
        { prefer: "wait=30" },
      );
      expect(gen.status).toBe("succeeded");

      const res = await api.post(`/v1/generations/${gen.id}/outputs/0/file`);
      const file = await expectOk<FileObject>(res, 201);
      expect(file.id).toMatch(FILE_ID);
      expect(file).toMatchObject({
        object: "file",
        content_type: "image/png",
        width: 512,
        height: 512,
        duration: null,
      });
      expect(file.created_at).toMatch(ISO_MS);
      expect(file.expires_at).toMatch(ISO_MS);
      expect(typeof file.filename === "string" || file.filename === null).toBe(true);
      expectBlobLink(store.busy, file, { contentType: "image/png", readAt: Date.now() });
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
      expectBlobLink(store.busy, read, { contentType: "image/png", readAt: Date.now() });
      expect(
        (await (await request.get(read.url)).body()).equals(output),
        "the kept file's link, read again, gives the output's bytes",
      ).toBe(true);
      const secondBytes = await (await request.get(second.url)).body();
      expect(
        secondBytes.equals(await (await request.get(gen.output[1]!.url)).body()),
        "the second kept file holds the second output",
      ).toBe(true);
      const listed = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(listed.data.map((f) => f.id).sort()).toEqual([file.id, second.id].sort());
      // Keeping is free.
      await expectLedgerIdentity(tenant);
    });

    test("concurrent keeps of one output make one file", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create(
        { model: "atelier/gradient", input: { prompt: "race to keep" } },
        { prefer: "wait=30" },
      );
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => api.post(`/v1/generations/${gen.id}/outputs/0/file`)),
      );
      const files = await Promise.all(answers.map((res) => expectOk<FileObject>(res, 201)));
      expect(new Set(files.map((f) => f.id)).size).toBe(1);
      const listed = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(listed.data).toHaveLength(1);
    });

    test("index out of range or not a number → 400 param index", async ({ request }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create(
        { model: "atelier/gradient", input: { prompt: "one output" } },
        { prefer: "wait=30" },
      );
      expect(gen.output).toHaveLength(1);
      for (const index of ["1", "63", "64", "abc", "-1", "1.5", "999"]) {
        await expectError(await api.post(`/v1/generations/${gen.id}/outputs/${index}/file`), 400, "invalid_parameter", {
          param: "index",
        });
      }
      const listed = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(listed.data).toEqual([]);
    });

    test("a sound output cannot be kept as a file → 400 param index, nothing kept", async ({ request }) => {
      test.setTimeout(60_000);
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const { gen } = await api.create(
        { model: "atelier/music", input: { prompt: "calm rain", duration: 1, seed: 3 } },
        { prefer: "wait=45" },
      );
      expect(gen.status).toBe("succeeded");
      expect(gen.output[0]!.type).toBe("audio");
      await expectError(await api.post(`/v1/generations/${gen.id}/outputs/0/file`), 400, "invalid_parameter", {
        param: "index",
      });
      const listed = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(listed.data).toEqual([]);
    });

    test("a run that has not succeeded has no output to keep → 400; another workspace's run → 404", async ({
      request,
    }) => {
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
