// Files and direct uploads (docs/api.md: "Files", "Direct uploads", "Limits",
// "Retry rules"): images up to 4 MB as multipart or raw body,
// measured not trusted; 413 above 4 MB, 415 for what is not an image; reading and listing files;
// uploads of sound opened, PUT to a signed URL without a key, completed into a File with a
// measured duration; size mismatch 400, not media 415, 10 in flight 429, no credit 402.
// On both blob stores: on disk ([sqlite · disk]) the API answers file links and takes upload PUTs
// itself; on the bucket ([postgres · bucket]) links are presigned GETs and upload_url a presigned
// PUT of the test bucket, the bytes going straight there, and complete reads the size from it.
import type { Upload } from "../../lib/core/files/file-shape";
import { expect, test } from "./fixtures";
import { expectError, expectOk, ISO_MS } from "./helpers";
import {
  bucketHolds,
  CURSOR,
  expectBlobLink,
  expectLedgerIdentity,
  expectNotFound,
  expectUploadUrl,
  FILE_ID,
  makePng,
  makePngHeaderOnly,
  makeWav,
  newTenant,
  pngSize,
  STORES,
  storeTitle,
  UPLOAD_ID,
  type Api,
  type FileObject,
} from "./runs-helpers";

const FOUR_MB = 4 * 1024 * 1024;

function postImage(api: Api, data: Buffer, contentType: string, extra: Record<string, string> = {}) {
  return api.request.post(api.url("/v1/files"), {
    headers: api.headers({ "content-type": contentType, ...extra }),
    data,
  });
}

function postMultipart(api: Api, data: Buffer, name: string, mimeType = "image/png", field = "file") {
  return api.request.post(api.url("/v1/files"), {
    headers: api.headers(),
    multipart: { [field]: { name, mimeType, buffer: data } },
  });
}

async function openUpload(api: Api, body: Record<string, unknown>) {
  return api.post("/v1/uploads", body);
}

function put(api: Api, url: string, data: Buffer) {
  // No API key: the signed URL is the permission (the API's own, or the bucket's presigned PUT).
  return api.request.put(url, { data, headers: { "content-type": "application/octet-stream" } });
}

/** PUT accepted: the API answers 2xx JSON, the bucket 200 with an ETag. */
async function expectPutAccepted(res: Awaited<ReturnType<typeof put>>): Promise<void> {
  expect(res.status(), await res.text()).toBeLessThan(300);
}

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] files`, () => {
    test("POST /v1/files multipart → 201 File, measured, served by its link", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1");
      const png = makePng(37, 21);
      const res = await postMultipart(api, png, "swatch.png");
      const file = await expectOk<FileObject>(res, 201);
      const target = expectBlobLink(store.idle, file, { contentType: "image/png", readAt: Date.now() });
      if (target.objectKey !== null)
        expect(
          await bucketHolds(store.idle, target.objectKey),
          "the bytes are in the bucket under the server's prefix",
        ).toBe(true);
      expect(file.id).toMatch(FILE_ID);
      expect(file).toMatchObject({
        object: "file",
        content_type: "image/png",
        bytes: png.length,
        width: 37,
        height: 21,
        duration: null,
        filename: "swatch.png",
      });
      expect(Object.keys(file).sort()).toEqual(
        [
          "bytes",
          "content_type",
          "created_at",
          "duration",
          "expires_at",
          "filename",
          "height",
          "id",
          "object",
          "url",
          "width",
        ].sort(),
      );
      expect(file.created_at).toMatch(ISO_MS);
      expect(file.expires_at).toMatch(ISO_MS);
      const served = await request.get(file.url);
      expect(served.status()).toBe(200);
      expect(served.headers()["content-type"]).toBe("image/png");
      expect((await served.body()).equals(png)).toBe(true);

      const read = await expectOk<FileObject>(await api.get(`/v1/files/${file.id}`));
      expect({ ...read, url: "", expires_at: "" }).toEqual({ ...file, url: "", expires_at: "" });
      expect(
        expectBlobLink(store.idle, read, { contentType: "image/png", readAt: Date.now() }).key,
        "the same blob, a fresh link",
      ).toBe(target.key);
      expect(pngSize(await (await request.get(read.url)).body())).toEqual({ width: 37, height: 21 });
      // Listed files carry links too.
      const listed = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(listed.data.map((f) => f.id)).toEqual([file.id]);
      expect(expectBlobLink(store.idle, listed.data[0]!, { contentType: "image/png", readAt: Date.now() }).key).toBe(
        target.key,
      );
    });

    test("raw body with an image content type → 201; the type is measured, not trusted", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1");
      const png = makePng(8, 9);
      const raw = await expectOk<FileObject>(
        await postImage(api, png, "image/png", { "content-disposition": 'inline; filename="raw.png"' }),
        201,
      );
      expect(raw).toMatchObject({
        content_type: "image/png",
        width: 8,
        height: 9,
        bytes: png.length,
        filename: "raw.png",
      });
      // Declared JPEG, is PNG: stored as what it is.
      const lying = await expectOk<FileObject>(await postImage(api, png, "image/jpeg"), 201);
      expect(lying.content_type).toBe("image/png");
      // Its link answers with the measured type, not the declared one.
      expectBlobLink(store.idle, lying, { contentType: "image/png", readAt: Date.now() });
      const served = await request.get(lying.url);
      expect(served.headers()["content-type"]).toBe("image/png");
      expect((await served.body()).equals(png)).toBe(true);
      expect(lying.id).not.toBe(raw.id);
      // Retrying POST /v1/files stores a second copy with its own ID (docs/api.md, "Retry rules").
      const copy = await expectOk<FileObject>(await postImage(api, png, "image/png"), 201);
      expect(new Set([raw.id, lying.id, copy.id]).size).toBe(3);
    });

    test("over 4 MB → 413 payload_too_large; exactly at the limit is read", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1");
      const big = Buffer.alloc(FOUR_MB + 1, 7);
      await expectError(await postImage(api, big, "image/png"), 413, "payload_too_large");
      await expectError(await postMultipart(api, big, "big.png"), 413, "payload_too_large");
      // A real PNG of about 4 MB (incompressible pixels) is fine while it stays ≤ 4 MB.
      const near = makePng(1100, 1260, { noise: true });
      expect(near.length).toBeLessThanOrEqual(FOUR_MB);
      expect(near.length).toBeGreaterThan(FOUR_MB - 100_000);
      const file = await expectOk<FileObject>(await postImage(api, near, "image/png"), 201);
      expect(file).toMatchObject({ bytes: near.length, width: 1100, height: 1260 });
      expectBlobLink(store.idle, file, { contentType: "image/png", readAt: Date.now() });
      expect((await (await request.get(file.url)).body()).equals(near), "all of its bytes behind the link").toBe(true);
      const list = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(list.data.map((f) => f.id)).toEqual([file.id]);
    });

    test("not an image → 415 unsupported_media_type; nothing stored", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1");
      const text = Buffer.from("definitely not pixels\n".repeat(20));
      await expectError(await postImage(api, text, "image/png"), 415, "unsupported_media_type");
      await expectError(await postMultipart(api, text, "notes.png"), 415, "unsupported_media_type");
      await expectError(await postImage(api, makePng(4, 4), "text/plain"), 415, "unsupported_media_type");
      await expectError(await postImage(api, makeWav(0.2), "audio/wav"), 415, "unsupported_media_type");
      const list = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(list.data).toEqual([]);
    });

    test("an image over the pixel limit → 400 invalid_parameter naming the limit; nothing stored", async ({
      request,
    }) => {
      const { api } = newTenant(request, store.idle, "1");
      const huge = makePngHeaderOnly(20_000, 20_000);
      expect(huge.length).toBeLessThan(64 * 1024);
      for (const res of [await postImage(api, huge, "image/png"), await postMultipart(api, huge, "huge.png")]) {
        await expectError(res, 400, "invalid_parameter", {
          param: "file",
          message: /20000×20000 pixels \(400,000,000\), over the limit of 268,402,689 pixels \(16,383×16,383\)/,
        });
      }
      // One row over the limit is over it.
      await expectError(
        await postImage(api, makePngHeaderOnly(16_383, 16_384), "image/png"),
        400,
        "invalid_parameter",
        { param: "file" },
      );
      const list = await expectOk<{ data: FileObject[] }>(await api.get("/v1/files"));
      expect(list.data).toEqual([]);
    });

    test("GET /v1/files pages newest first; other workspaces' files are 404", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1");
      const made: string[] = [];
      for (let i = 0; i < 5; i++)
        made.push((await expectOk<FileObject>(await postImage(api, makePng(i + 1, 1), "image/png"), 201)).id);
      const first = await expectOk<{
        object: string;
        url: string;
        data: FileObject[];
        has_more: boolean;
        next_cursor: string | null;
      }>(await api.get("/v1/files?limit=2"));
      expect(first).toMatchObject({ object: "list", url: "/v1/files", has_more: true });
      expect(first.next_cursor).toMatch(CURSOR);
      const seen = [...first.data.map((f) => f.id)];
      let cursor = first.next_cursor;
      while (cursor) {
        const page = await expectOk<{ data: FileObject[]; has_more: boolean; next_cursor: string | null }>(
          await api.get(`/v1/files?limit=2&cursor=${encodeURIComponent(cursor)}`),
        );
        seen.push(...page.data.map((f) => f.id));
        cursor = page.has_more ? page.next_cursor : null;
      }
      expect(seen).toEqual([...made].reverse());
      await expectError(await api.get("/v1/files?limit=0"), 400, "invalid_parameter", { param: "limit" });
      await expectError(
        await api.get(`/v1/files?cursor=${encodeURIComponent(`${first.next_cursor!.slice(0, -1)}x`)}`),
        400,
        "invalid_parameter",
        {
          param: "cursor",
        },
      );

      const stranger = newTenant(request, store.idle, "1");
      await expectNotFound(await stranger.api.get(`/v1/files/${made[0]}`));
      expect((await expectOk<{ data: FileObject[] }>(await stranger.api.get("/v1/files"))).data).toEqual([]);
    });

    test("a file feeds a model input by its ID; a URL or another workspace's file → 400 input.<field>", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.busy, "1");
      const { api } = tenant;
      const file = await expectOk<FileObject>(await postImage(api, makePng(30, 20), "image/png"), 201);
      const { gen } = await api.create(
        { model: "atelier/upscale", input: { image: file.id, scale: 4 } },
        { prefer: "wait=30" },
      );
      expect(gen.status).toBe("succeeded");
      expect(gen.output[0]).toMatchObject({ width: 120, height: 80 });
      expectBlobLink(store.busy, gen.output[0]!, { contentType: gen.output[0]!.content_type, readAt: Date.now() });
      expect(pngSize(await (await request.get(gen.output[0]!.url)).body())).toEqual({ width: 120, height: 80 });

      await expectError(
        await api.post("/v1/generations", { model: "atelier/upscale", input: { image: file.url } }),
        400,
        "invalid_parameter",
        {
          param: "input.image",
        },
      );
      const stranger = newTenant(request, store.busy, "1");
      await expectError(
        await stranger.api.post("/v1/generations", { model: "atelier/upscale", input: { image: file.id } }),
        400,
        "invalid_parameter",
        { param: "input.image" },
      );
      expect(await stranger.api.credits()).toEqual({ available: 1_000_000, held: 0 });
      await expectLedgerIdentity(tenant);
    });
  });

  test.describe(`[${storeTitle(store)}] direct uploads`, () => {
    test("open, PUT without a key, complete → File with the measured duration; complete again → same File", async ({
      request,
    }) => {
      const { api } = newTenant(request, store.idle, "1");
      const wav = makeWav(1.5);
      const res = await openUpload(api, { filename: "tone.wav", content_type: "audio/wav", bytes: wav.length });
      const upload = await expectOk<Upload>(res, 201);
      expect(upload.id).toMatch(UPLOAD_ID);
      expect(upload).toMatchObject({
        object: "upload",
        status: "pending",
        filename: "tone.wav",
        content_type: "audio/wav",
        bytes: wav.length,
        file: null,
      });
      expect(upload.expires_at).toMatch(ISO_MS);
      expect(Date.parse(upload.expires_at)).toBeGreaterThan(Date.now());
      // On disk the API's own PUT; on the bucket a presigned PUT of <prefix><key>, valid until expires_at.
      const bucketTarget = expectUploadUrl(store.idle, upload, Date.now());
      // Reading the upload again hands out a working URL to the same place.
      const shownPending = await expectOk<Upload>(await api.get(`/v1/uploads/${upload.id}`));
      expect(shownPending.status).toBe("pending");
      const again0 = expectUploadUrl(store.idle, shownPending, Date.now());
      expect(again0?.objectKey ?? null).toBe(bucketTarget?.objectKey ?? null);

      await expectPutAccepted(await put(api, upload.upload_url!, wav));
      if (bucketTarget)
        expect(await bucketHolds(store.idle, bucketTarget.objectKey!), "the bytes went straight to the bucket").toBe(
          true,
        );

      const done = await api.post(`/v1/uploads/${upload.id}/complete`);
      expect([200, 201]).toContain(done.status());
      const file = await expectOk<FileObject>(done, done.status());
      expect(file.id).toMatch(FILE_ID);
      expect(file).toMatchObject({
        object: "file",
        content_type: "audio/wav",
        bytes: wav.length,
        width: null,
        height: null,
        filename: "tone.wav",
      });
      expect(file.duration).toBeCloseTo(1.5, 2);
      const fileTarget = expectBlobLink(store.idle, file, { contentType: "audio/wav", readAt: Date.now() });
      // On the bucket the File is a copy made at complete, not the object upload_url writes
      // (its presigned PUT outlives complete); that object is gone.
      if (bucketTarget) {
        expect(fileTarget.objectKey).not.toBe(bucketTarget.objectKey);
        expect(await bucketHolds(store.idle, bucketTarget.objectKey!)).toBe(false);
      }
      const served = await request.get(file.url);
      expect(served.status()).toBe(200);
      expect(served.headers()["content-type"]).toBe("audio/wav");
      expect((await served.body()).equals(wav)).toBe(true);
      // A range of the sound, as a player asks for it.
      const part = await request.get(file.url, { headers: { range: "bytes=44-1043" } });
      expect(part.status()).toBe(206);
      expect(part.headers()["content-range"]).toBe(`bytes 44-1043/${wav.length}`);
      expect((await part.body()).equals(wav.subarray(44, 1044))).toBe(true);

      // Other bytes PUT to upload_url after complete never reach the File: the bucket takes them
      // (the presigned PUT lives its hour), the API's own PUT refuses them.
      const swapped = Buffer.alloc(wav.length, "<html><script>alert(1)</script></html>");
      expect((await put(api, upload.upload_url!, swapped)).status()).toBe(bucketTarget ? 200 : 409);
      expect((await (await request.get(file.url)).body()).equals(wav)).toBe(true);

      // Completing is safe to repeat.
      const again = await api.post(`/v1/uploads/${upload.id}/complete`);
      expect((await expectOk<FileObject>(again, again.status())).id).toBe(file.id);
      const shown = await expectOk<Upload>(await api.get(`/v1/uploads/${upload.id}`));
      expect(shown).toMatchObject({ status: "completed", upload_url: null });
      expect(shown.file?.id).toBe(file.id);
      const read = await expectOk<FileObject>(await api.get(`/v1/files/${file.id}`));
      expect(read.duration).toBeCloseTo(1.5, 2);
      expect(expectBlobLink(store.idle, read, { contentType: "audio/wav", readAt: Date.now() }).key).toBe(
        fileTarget.key,
      );
      expect(expectBlobLink(store.idle, shown.file!, { contentType: "audio/wav", readAt: Date.now() }).key).toBe(
        fileTarget.key,
      );
      // Opening and completing an upload is free.
      expect(await api.credits()).toEqual({ available: 1_000_000, held: 0 });
    });

    test("a body shorter than declared → 400 at complete; the whole file PUT again to the same upload_url completes", async ({
      request,
    }) => {
      const { api } = newTenant(request, store.idle, "1");
      const wav = makeWav(0.5);
      const upload = await expectOk<Upload>(
        await openUpload(api, { filename: "short.wav", content_type: "audio/wav", bytes: wav.length }),
        201,
      );
      const target = expectUploadUrl(store.idle, upload, Date.now());
      await expectPutAccepted(await put(api, upload.upload_url!, wav.subarray(0, wav.length - 10)));
      await expectError(await api.post(`/v1/uploads/${upload.id}/complete`), 400, "invalid_parameter", {
        param: "bytes",
      });
      const pending = await expectOk<Upload>(await api.get(`/v1/uploads/${upload.id}`));
      expect(pending).toMatchObject({ status: "pending", file: null });
      // On the bucket nothing of the wrong-sized body is kept.
      if (target)
        expect(await bucketHolds(store.idle, target.objectKey!), "the wrong-sized object is deleted").toBe(false);

      await expectPutAccepted(await put(api, upload.upload_url!, wav));
      const done = await api.post(`/v1/uploads/${upload.id}/complete`);
      const file = await expectOk<FileObject>(done, done.status());
      expect(file).toMatchObject({ bytes: wav.length, content_type: "audio/wav", filename: "short.wav" });
      expect((await (await request.get(file.url)).body()).equals(wav)).toBe(true);
    });

    test("a body larger than declared: 413 at the API's PUT on disk; on the bucket 400 at complete, then the right bytes complete", async ({
      request,
    }) => {
      const { api } = newTenant(request, store.idle, "1");
      const right = makeWav(0.25);
      const upload = await expectOk<Upload>(
        await openUpload(api, { filename: "small.wav", content_type: "audio/wav", bytes: right.length }),
        201,
      );
      const target = expectUploadUrl(store.idle, upload, Date.now());
      const tooBig = await put(api, upload.upload_url!, makeWav(0.5));
      if (store.blobs === "disk") {
        await expectError(tooBig, 413, "payload_too_large");
      } else {
        // The bucket cannot refuse it at PUT time the way the API does (s3rver does not check the
        // signed content-length at all; a real S3 refuses the PUT with 403): complete does.
        await expectPutAccepted(tooBig);
        await expectError(await api.post(`/v1/uploads/${upload.id}/complete`), 400, "invalid_parameter", {
          param: "bytes",
        });
        expect(await bucketHolds(store.idle, target!.objectKey!), "the wrong-sized object is deleted").toBe(false);
      }
      expect((await expectOk<Upload>(await api.get(`/v1/uploads/${upload.id}`))).status).toBe("pending");
      // The declared bytes to the same upload_url.
      await expectPutAccepted(await put(api, upload.upload_url!, right));
      const done = await api.post(`/v1/uploads/${upload.id}/complete`);
      const file = await expectOk<FileObject>(done, done.status());
      expect(file.bytes).toBe(right.length);
      expect((await (await request.get(file.url)).body()).equals(right)).toBe(true);
    });

    test("bytes that are not media → 415 on complete", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1");
      const junk = Buffer.from("this is not a sound file at all. ".repeat(10));
      const upload = await expectOk<Upload>(
        await openUpload(api, { filename: "junk.wav", content_type: "audio/wav", bytes: junk.length }),
        201,
      );
      expect((await put(api, upload.upload_url!, junk)).status()).toBeLessThan(300);
      await expectError(await api.post(`/v1/uploads/${upload.id}/complete`), 415, "unsupported_media_type");
    });

    test("a changed upload URL → 403 permission_denied", async ({ request }) => {
      test.skip(
        store.blobs === "bucket",
        "s3rver verifies no SigV4 signatures; a real S3 refuses a changed presigned URL",
      );
      const { api } = newTenant(request, store.idle, "1");
      const wav = makeWav(0.25);
      const upload = await expectOk<Upload>(
        await openUpload(api, { filename: "t.wav", content_type: "audio/wav", bytes: wav.length }),
        201,
      );
      const u = new URL(upload.upload_url!);
      const sig = u.searchParams.get("signature")!;
      u.searchParams.set("signature", `${sig.slice(0, -1)}${sig.at(-1) === "A" ? "B" : "A"}`);
      await expectError(await put(api, u.toString(), wav), 403, "permission_denied");
    });

    test("an upload request is checked: content type, bytes, filename → 400 naming the field", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1");
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ filename: "a.png", content_type: "image/png", bytes: 10 }, "content_type"],
        [{ filename: "a.wav", content_type: "audio/wav", bytes: 0 }, "bytes"],
        [{ filename: "a.wav", content_type: "audio/wav", bytes: 1.5 }, "bytes"],
        [{ filename: "a.wav", content_type: "audio/wav", bytes: 6 * 1024 ** 3 }, "bytes"],
        [{ content_type: "audio/wav", bytes: 10 }, "filename"],
        [{ filename: "a.wav", content_type: "audio/wav", bytes: 10, colour: "red" }, "colour"],
      ];
      for (const [body, param] of cases)
        await expectError(await openUpload(api, body), 400, "invalid_parameter", { param });
    });

    test("10 uploads in flight → the 11th gets 429 rate_limit_exceeded; completing one makes room", async ({
      request,
    }) => {
      const { api } = newTenant(request, store.idle, "1");
      const wav = makeWav(0.1);
      const open: Upload[] = [];
      for (let i = 0; i < 10; i++)
        open.push(
          await expectOk<Upload>(
            await openUpload(api, { filename: `f${i}.wav`, content_type: "audio/wav", bytes: wav.length }),
            201,
          ),
        );
      const refused = await openUpload(api, { filename: "eleven.wav", content_type: "audio/wav", bytes: wav.length });
      await expectError(refused, 429, "rate_limit_exceeded");
      expect(refused.headers()["retry-after"]).toMatch(/^\d+$/);

      expect((await put(api, open[0]!.upload_url!, wav)).status()).toBeLessThan(300);
      const done = await api.post(`/v1/uploads/${open[0]!.id}/complete`);
      expect(done.status()).toBeLessThan(300);
      await expectOk<Upload>(
        await openUpload(api, { filename: "eleven.wav", content_type: "audio/wav", bytes: wav.length }),
        201,
      );
      await expectError(
        await openUpload(api, { filename: "twelve.wav", content_type: "audio/wav", bytes: wav.length }),
        429,
        "rate_limit_exceeded",
      );
    });

    test("5 GB a day: an upload past the daily allowance → 429 rate_limit_exceeded with Retry-After", async ({
      request,
    }) => {
      const { api } = newTenant(request, store.idle, "1");
      // Declared sizes count when opened; no bytes need to move.
      await expectOk<Upload>(
        await openUpload(api, { filename: "long.mp4", content_type: "video/mp4", bytes: 5 * 1024 ** 3 }),
        201,
      );
      const refused = await openUpload(api, { filename: "one-more.wav", content_type: "audio/wav", bytes: 1 });
      await expectError(refused, 429, "rate_limit_exceeded");
      const retryAfter = Number(refused.headers()["retry-after"]);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    });

    test("a workspace with $0 available → 402 insufficient_credit", async ({ request }) => {
      const broke = newTenant(request, store.idle, "0");
      await expectError(
        await openUpload(broke.api, { filename: "a.wav", content_type: "audio/wav", bytes: 100 }),
        402,
        "insufficient_credit",
      );
      // All of it held counts as $0 available too.
      const held = newTenant(request, store.idle, "0.002");
      await held.api.create({ model: "atelier/gradient", input: { prompt: "hold it all" } });
      expect(await held.api.credits()).toEqual({ available: 0, held: 2_000 });
      await expectError(
        await openUpload(held.api, { filename: "a.wav", content_type: "audio/wav", bytes: 100 }),
        402,
        "insufficient_credit",
      );
      await expectLedgerIdentity(held);
    });

    test("another workspace's upload → 404", async ({ request }) => {
      const { api } = newTenant(request, store.idle, "1");
      const upload = await expectOk<Upload>(
        await openUpload(api, { filename: "a.wav", content_type: "audio/wav", bytes: 100 }),
        201,
      );
      const stranger = newTenant(request, store.idle, "1");
      await expectNotFound(await stranger.api.get(`/v1/uploads/${upload.id}`));
      await expectNotFound(await stranger.api.post(`/v1/uploads/${upload.id}/complete`));
    });
  });
}
