// Files, direct uploads and output links with a bucket (S3_BUCKET) behind the blob store: a real
// S3-compatible server (s3rver) on loopback, never a mock of the SDK.
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s3BlobStore } from "../../blobs/s3-blob-store";
import { encodeWav } from "../../models/audio/wav";
import { startTestS3Server, type TestS3Server } from "../../blobs/testing/test-s3-server";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import type { Ctx } from "../context";
import { ApiError } from "../../primitives/errors";
import { createImageFile, getFile, listFiles } from "./files";
import { completeUpload, getUpload, openUpload } from "./uploads";
import { createWorkspace } from "../workspaces/workspaces";

const PREFIX = "core-test/";

/** `seconds` of silence as a WAV, written by the project's own encoder. */
function wav(seconds: number, sampleRate = 8_000): Buffer {
  return encodeWav([new Float32Array(Math.round(seconds * sampleRate))], sampleRate);
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return (err as ApiError).code;
}

describe(`blobs in a bucket (${testDialect()})`, () => {
  let t: TestStore;
  let s3: TestS3Server;
  let store: ReturnType<typeof s3BlobStore>;
  const savedEnv: Record<string, string | undefined> = {};
  beforeAll(async () => {
    t = await openTestStore();
    s3 = await startTestS3Server();
    // Credentials reach the SDK the way they do in production: its default chain reads them from the environment.
    for (const [name, value] of Object.entries(s3.env(PREFIX)).filter(([name]) => name.startsWith("AWS_"))) {
      savedEnv[name] = process.env[name];
      process.env[name] = value;
    }
    store = s3BlobStore(s3.settings(PREFIX));
  });
  afterAll(async () => {
    store?.close();
    await s3?.close();
    await t?.cleanup();
    for (const [name, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  async function bucketCtx(): Promise<Ctx> {
    const ctx = testCtx(t, (await createWorkspace({ db: t.store.db }, { name: "bucket", creditMicros: 1_000_000 })).id);
    return { ...ctx, services: { ...ctx.services, blobs: store } };
  }

  it("stores an image file in the bucket under the prefix and answers a presigned link valid 24 hours", async () => {
    const ctx = await bucketCtx();
    const png = await sharp({ create: { width: 12, height: 7, channels: 3, background: "#336699" } })
      .png()
      .toBuffer();
    const readAt = Date.now();
    const file = await createImageFile(ctx, { data: png, filename: "swatch.png" });
    const url = new URL(file.url);
    const row = await t.store.db.selectFrom("files").select("blob").where("id", "=", file.id).executeTakeFirstOrThrow();
    expect(`${url.origin}${url.pathname}`).toBe(`${s3.endpoint}/${s3.bucket}/${PREFIX}${row.blob}`);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("86400");
    expect(url.searchParams.get("response-content-type")).toBe("image/png");
    const signedAt = Date.parse(
      url.searchParams.get("X-Amz-Date")!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, "$1-$2-$3T$4:$5:$6Z"),
    );
    expect(Date.parse(file.expires_at)).toBe(signedAt + 86_400_000);
    expect(Math.abs(signedAt - readAt)).toBeLessThan(60_000);
    const served = await fetch(file.url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    expect((await s3.listKeys()).every((key) => key.startsWith(PREFIX))).toBe(true);
    // Read again and listed: fresh links to the same bytes.
    expect((await getFile(ctx, { id: file.id })).url).toContain(`/${PREFIX}${row.blob}?`);
    expect((await listFiles(ctx, {})).data.map((f) => f.id)).toEqual([file.id]);
  });

  it("a direct upload goes straight to the bucket with a presigned PUT, and complete measures it there", async () => {
    const ctx = await bucketCtx();
    const data = wav(1.25);
    const upload = await openUpload(ctx, { filename: "voice.wav", content_type: "audio/wav", bytes: data.byteLength });
    const target = new URL(upload.upload_url!);
    expect(`${target.origin}${target.pathname}`).toMatch(
      new RegExp(`^${s3.endpoint}/${s3.bucket}/${PREFIX}[0-9A-Za-z]{32}$`),
    );
    expect(target.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;host");
    // Nothing arrived yet.
    expect(await codeOf(completeUpload(ctx, { id: upload.id }))).toBe("invalid_parameter");

    // A body of the wrong size is found at complete, removed, and the same URL takes the right one.
    const short = await fetch(upload.upload_url!, { method: "PUT", body: new Uint8Array(data.subarray(0, 100)) });
    expect(short.status).toBe(200);
    expect(await codeOf(completeUpload(ctx, { id: upload.id }))).toBe("invalid_parameter");
    expect(await s3.listKeys(`${PREFIX}${target.pathname.split("/").pop()}`)).toEqual([]);
    expect((await getUpload(ctx, { id: upload.id })).status).toBe("pending");

    const whole = await fetch(upload.upload_url!, { method: "PUT", body: new Uint8Array(data) });
    expect(whole.status).toBe(200);
    const file = await completeUpload(ctx, { id: upload.id });
    expect(file).toMatchObject({ content_type: "audio/wav", bytes: data.byteLength, filename: "voice.wav" });
    expect(file.duration).toBeCloseTo(1.25, 2);
    expect(Buffer.from(await (await fetch(file.url)).arrayBuffer()).equals(data)).toBe(true);
    expect((await completeUpload(ctx, { id: upload.id })).id).toBe(file.id);
    expect((await getUpload(ctx, { id: upload.id })).upload_url).toBeNull();
  });

  it("bytes PUT to the presigned URL after complete never reach the File: it serves what complete checked", async () => {
    const ctx = await bucketCtx();
    const data = wav(0.5);
    const upload = await openUpload(ctx, { filename: "kept.wav", content_type: "audio/wav", bytes: data.byteLength });
    expect((await fetch(upload.upload_url!, { method: "PUT", body: new Uint8Array(data) })).status).toBe(200);
    const file = await completeUpload(ctx, { id: upload.id });
    const uploadObject = `${PREFIX}${new URL(upload.upload_url!).pathname.split("/").pop()}`;
    // The upload's own object is gone; the File's is another.
    expect(await s3.listKeys(uploadObject)).toEqual([]);
    expect(new URL(file.url).pathname).not.toContain(uploadObject);
    // The presigned PUT still works for the rest of its hour: other bytes of the same length.
    const html = Buffer.alloc(data.byteLength, "<html><script>alert(1)</script></html>");
    expect((await fetch(upload.upload_url!, { method: "PUT", body: new Uint8Array(html) })).status).toBe(200);
    for (const link of [file.url, (await getFile(ctx, { id: file.id })).url]) {
      const served = await fetch(link);
      expect(served.headers.get("content-type")).toBe("audio/wav");
      expect(Buffer.from(await served.arrayBuffer()).equals(data)).toBe(true);
    }
    // Completing again answers the same File, still on the checked bytes.
    expect((await completeUpload(ctx, { id: upload.id })).id).toBe(file.id);
  });

  it("refuses bytes that are not media at complete, and the upload stays open", async () => {
    const ctx = await bucketCtx();
    const junk = Buffer.alloc(2_000, 7);
    const upload = await openUpload(ctx, { filename: "junk.wav", content_type: "audio/wav", bytes: junk.byteLength });
    expect((await fetch(upload.upload_url!, { method: "PUT", body: new Uint8Array(junk) })).status).toBe(200);
    expect(await codeOf(completeUpload(ctx, { id: upload.id }))).toBe("unsupported_media_type");
    expect((await getUpload(ctx, { id: upload.id })).status).toBe("pending");
  });
});
