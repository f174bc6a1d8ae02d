import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../store/database";
import { defaultFfmpegPath, runFfmpeg } from "../../media/ffmpeg";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import type { Ctx } from "../context";
import { readBalance } from "../credits/credits";
import { ApiError } from "../../primitives/errors";
import { getFile } from "./files";
import { sign } from "../../primitives/signing";
import { completeUpload, getUpload, openUpload, receiveUploadContent, type Upload } from "./uploads";
import { createWorkspace } from "../workspaces/workspaces";

const USD = 1_000_000;
const GB5 = 5 * 1024 ** 3;

async function apiError(promise: Promise<unknown>, code: string): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe(code);
  return err as ApiError;
}

/** A 16-bit PCM WAV of `seconds` of silence, header written by hand. */
function wav(seconds: number, sampleRate = 8_000, channels = 1): Buffer {
  const blockAlign = channels * 2;
  const dataBytes = Math.round(seconds * sampleRate) * blockAlign;
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28); // byte rate
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(16, 34); // bits per sample
  header.write("data", 36, "ascii");
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.alloc(dataBytes)]);
}

/** The body as a stream of chunks, as the PUT route hands it over. */
async function* chunks(data: Buffer, size = 4096): AsyncIterable<Uint8Array> {
  for (let i = 0; i < data.byteLength; i += size) yield data.subarray(i, i + size);
}

function signedParts(upload: Upload): { expires: string; signature: string } {
  const url = new URL(upload.upload_url!);
  return { expires: url.searchParams.get("expires")!, signature: url.searchParams.get("signature")! };
}

describe(`uploads (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function workspaceCtx(creditMicros: number | undefined = USD): Promise<Ctx> {
    return testCtx(t, (await createWorkspace({ db }, { name: "uploads test", creditMicros })).id);
  }

  const put = (ctx: Ctx, upload: Upload, data: Buffer, parts = signedParts(upload)) =>
    receiveUploadContent({ db: ctx.db, services: ctx.services }, { id: upload.id, ...parts, body: chunks(data) });

  async function uploadCount(workspaceId: string): Promise<number> {
    const row = await db
      .selectFrom("uploads")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  describe("openUpload", () => {
    it("opens a pending upload with a signed PUT URL valid for an hour", async () => {
      const ctx = await workspaceCtx();
      const upload = await openUpload(ctx, { filename: "../voice.wav", content_type: "audio/wav", bytes: 1234 });
      expect(upload.id).toMatch(/^upl_[0-9A-Za-z]{24}$/);
      expect(upload).toMatchObject({
        object: "upload",
        status: "pending",
        filename: "voice.wav",
        content_type: "audio/wav",
        bytes: 1234,
        file: null,
      });
      const url = new URL(upload.upload_url!);
      expect(`${url.origin}${url.pathname}`).toBe(`http://localhost:3000/v1/uploads/${upload.id}/content`);
      expect(Number(url.searchParams.get("expires")) * 1000).toBe(
        Math.floor(Date.parse(upload.expires_at) / 1000) * 1000,
      );
      expect(Date.parse(upload.expires_at) - Date.parse(upload.created_at)).toBe(3_600_000);
      expect(await getUpload(ctx, { id: upload.id })).toEqual(upload);
    });

    it("checks filename, content_type and bytes", async () => {
      const ctx = await workspaceCtx();
      const good = { filename: "a.wav", content_type: "audio/wav", bytes: 10 };
      const cases: Array<[unknown, string | null]> = [
        [{ ...good, filename: "" }, "filename"],
        [{ ...good, filename: 3 }, "filename"],
        [{ ...good, content_type: "image/png" }, "content_type"],
        [{ ...good, bytes: 0 }, "bytes"],
        [{ ...good, bytes: 1.5 }, "bytes"],
        [{ ...good, bytes: "10" }, "bytes"],
        [{ ...good, bytes: GB5 + 1 }, "bytes"],
        [{ ...good, extra: true }, "extra"],
        [[good], null],
      ];
      for (const [body, param] of cases)
        expect((await apiError(openUpload(ctx, body), "invalid_parameter")).param).toBe(param);
      expect(await uploadCount(ctx.workspaceId)).toBe(0);
    });

    it("refuses a workspace without credit with insufficient_credit", async () => {
      const ctx = await workspaceCtx(0);
      expect((await readBalance(db, ctx.workspaceId)).availableMicros).toBe(0);
      const err = await apiError(
        openUpload(ctx, { filename: "a.wav", content_type: "audio/wav", bytes: 10 }),
        "insufficient_credit",
      );
      expect(err.status).toBe(402);
      expect(await uploadCount(ctx.workspaceId)).toBe(0);
    });

    it("allows 10 uploads in flight; the 11th is rate_limit_exceeded with Retry-After", async () => {
      const ctx = await workspaceCtx();
      const body = { filename: "a.wav", content_type: "audio/wav", bytes: 100 };
      for (let i = 0; i < 10; i++) await openUpload(ctx, body);
      const err = await apiError(openUpload(ctx, body), "rate_limit_exceeded");
      expect(err.status).toBe(429);
      expect(Number(err.headers["Retry-After"])).toBeGreaterThan(0);
      expect(await uploadCount(ctx.workspaceId)).toBe(10);
    });

    it("counts only uploads still in flight: completed and expired ones free a place", async () => {
      const ctx = await workspaceCtx();
      const body = { filename: "a.wav", content_type: "audio/wav", bytes: 100 };
      const opened: Upload[] = [];
      for (let i = 0; i < 10; i++) opened.push(await openUpload(ctx, body));
      await db
        .updateTable("uploads")
        .set({ expires_at: "2000-01-01T00:00:00.000Z" })
        .where("id", "=", opened[0]!.id)
        .execute();
      await openUpload(ctx, body);
      await db.updateTable("uploads").set({ status: "completed" }).where("id", "=", opened[1]!.id).execute();
      await openUpload(ctx, body);
      await apiError(openUpload(ctx, body), "rate_limit_exceeded");
    });

    it("concurrent opens never pass the in-flight limit", async () => {
      const ctx = await workspaceCtx();
      const body = { filename: "a.wav", content_type: "audio/wav", bytes: 100 };
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => openUpload(ctx, body)));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(10);
      for (const r of results)
        if (r.status === "rejected") expect((r.reason as ApiError).code).toBe("rate_limit_exceeded");
      expect(await uploadCount(ctx.workspaceId)).toBe(10);
    });

    it("concurrent opens never pass the daily allowance", async () => {
      const ctx = await workspaceCtx();
      const body = { filename: "big.mp4", content_type: "video/mp4", bytes: 2 * 1024 ** 3 };
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => openUpload(ctx, body)));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
      for (const r of results)
        if (r.status === "rejected") expect((r.reason as ApiError).code).toBe("rate_limit_exceeded");
    });

    it("allows 5 GB a day: a full day's upload, then any more is rate_limit_exceeded until midnight UTC", async () => {
      const ctx = await workspaceCtx();
      const full = await openUpload(ctx, { filename: "big.mp4", content_type: "video/mp4", bytes: GB5 });
      expect(full.bytes).toBe(GB5);
      const err = await apiError(
        openUpload(ctx, { filename: "one-more.wav", content_type: "audio/wav", bytes: 1 }),
        "rate_limit_exceeded",
      );
      expect(err.status).toBe(429);
      const retryAfter = Number(err.headers["Retry-After"]);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect(err.message).toMatch(/5 GB/);
      // Uploads of earlier days do not count.
      await db
        .updateTable("uploads")
        .set({ created_at: "2000-01-01T00:00:00.000Z" })
        .where("id", "=", full.id)
        .execute();
      await openUpload(ctx, { filename: "next-day.wav", content_type: "audio/wav", bytes: GB5 });
    });
  });

  describe("receiveUploadContent and completeUpload", () => {
    it("a WAV uploaded whole becomes a File with its measured duration", async () => {
      const ctx = await workspaceCtx();
      const data = wav(1.5);
      const upload = await openUpload(ctx, {
        filename: "voice.wav",
        content_type: "audio/wav",
        bytes: data.byteLength,
      });
      expect(await put(ctx, upload, data)).toEqual({ id: upload.id, received_bytes: data.byteLength });
      const file = await completeUpload(ctx, { id: upload.id });
      expect(file.id).toMatch(/^file_/);
      expect(file).toMatchObject({
        object: "file",
        content_type: "audio/wav",
        bytes: data.byteLength,
        width: null,
        height: null,
        filename: "voice.wav",
      });
      expect(file.duration).toBeCloseTo(1.5, 2);
      const { url: _u, expires_at: _e, ...stable } = file;
      expect(await getFile(ctx, { id: file.id })).toMatchObject(stable);
      const row = await db.selectFrom("files").selectAll().where("id", "=", file.id).executeTakeFirstOrThrow();
      expect(await ctx.services.blobs.size(row.blob)).toBe(data.byteLength);

      const after = await getUpload(ctx, { id: upload.id });
      expect(after).toMatchObject({ status: "completed", upload_url: null, file: { id: file.id } });
      // Completing again is safe: the same File.
      expect((await completeUpload(ctx, { id: upload.id })).id).toBe(file.id);
      // No more bytes once completed.
      await apiError(put(ctx, upload, data), "conflict");
    });

    it("bytes PUT while complete runs never reach the File: it keeps the bytes complete checked", async () => {
      const ctx = await workspaceCtx();
      const data = wav(0.5);
      const upload = await openUpload(ctx, { filename: "kept.wav", content_type: "audio/wav", bytes: data.byteLength });
      await put(ctx, upload, data);
      const uploadKey = (
        await db.selectFrom("uploads").select("blob").where("id", "=", upload.id).executeTakeFirstOrThrow()
      ).blob!;
      // A second PUT, let in while the upload was pending, whose body arrives after complete.
      const swapped = Buffer.alloc(data.byteLength, "<html><script>alert(1)</script></html>");
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const bodyStarted = new Promise<void>((resolve) => (started = resolve));
      async function* lateBody(): AsyncIterable<Uint8Array> {
        started();
        await released;
        yield swapped;
      }
      const late = receiveUploadContent(
        { db: ctx.db, services: ctx.services },
        { id: upload.id, ...signedParts(upload), body: lateBody() },
      );
      await bodyStarted;
      const file = await completeUpload(ctx, { id: upload.id });
      release();
      await apiError(late, "conflict");
      const row = await db.selectFrom("files").select("blob").where("id", "=", file.id).executeTakeFirstOrThrow();
      expect(row.blob).not.toBe(uploadKey);
      expect((await ctx.services.blobs.readAll(row.blob)).equals(data)).toBe(true);
      // Neither the upload's own key nor the late bytes are kept.
      expect(await ctx.services.blobs.size(uploadKey)).toBeNull();
    });

    it("concurrent completes make one File", async () => {
      const ctx = await workspaceCtx();
      const data = wav(0.25);
      const upload = await openUpload(ctx, { filename: "c.wav", content_type: "audio/wav", bytes: data.byteLength });
      await put(ctx, upload, data);
      const files = await Promise.all(Array.from({ length: 6 }, () => completeUpload(ctx, { id: upload.id })));
      expect(new Set(files.map((f) => f.id)).size).toBe(1);
      const row = await db
        .selectFrom("files")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("workspace_id", "=", ctx.workspaceId)
        .executeTakeFirstOrThrow();
      expect(Number(row.n)).toBe(1);
    });

    it("refuses a tampered, cut or expired upload URL with permission_denied, storing nothing", async () => {
      const ctx = await workspaceCtx();
      const data = wav(0.1);
      const upload = await openUpload(ctx, { filename: "t.wav", content_type: "audio/wav", bytes: data.byteLength });
      const { expires, signature } = signedParts(upload);
      const flipped = (signature[0] === "A" ? "B" : "A") + signature.slice(1);
      const attempts = [
        { expires, signature: flipped },
        { expires: String(Number(expires) + 3600), signature },
        { expires, signature: undefined },
        { expires: undefined, signature },
        { expires: "soon", signature },
      ];
      for (const parts of attempts) {
        const err = await apiError(
          receiveUploadContent({ db, services: ctx.services }, { id: upload.id, ...parts, body: chunks(data) }),
          "permission_denied",
        );
        expect(err.status).toBe(403);
      }
      // The signature of another upload does not open this one.
      const other = await openUpload(ctx, { filename: "o.wav", content_type: "audio/wav", bytes: data.byteLength });
      await apiError(put(ctx, upload, data, signedParts(other)), "permission_denied");
      // A correctly signed URL whose time is up.
      const past = String(Math.floor(Date.now() / 1000) - 10);
      const expired = { expires: past, signature: sign(ctx.services.secretKey, "upload", `${upload.id}\n${past}`) };
      expect((await apiError(put(ctx, upload, data, expired), "permission_denied")).message).toMatch(/expired/);
      const row = await db.selectFrom("uploads").selectAll().where("id", "=", upload.id).executeTakeFirstOrThrow();
      expect([row.blob, row.received_bytes]).toEqual([null, null]);
      expect((await apiError(completeUpload(ctx, { id: upload.id }), "invalid_parameter")).param).toBe("id");
    });

    it("refuses a body larger than declared with payload_too_large and keeps nothing", async () => {
      const ctx = await workspaceCtx();
      const data = wav(0.5);
      const upload = await openUpload(ctx, {
        filename: "big.wav",
        content_type: "audio/wav",
        bytes: data.byteLength - 1,
      });
      const err = await apiError(put(ctx, upload, data), "payload_too_large");
      expect(err.status).toBe(413);
      const row = await db.selectFrom("uploads").selectAll().where("id", "=", upload.id).executeTakeFirstOrThrow();
      expect([row.blob, row.received_bytes, row.status]).toEqual([null, null, "pending"]);
    });

    it("a body smaller than declared cannot be completed (invalid_parameter bytes); a second PUT replaces it", async () => {
      const ctx = await workspaceCtx();
      const data = wav(0.5);
      const upload = await openUpload(ctx, {
        filename: "short.wav",
        content_type: "audio/wav",
        bytes: data.byteLength,
      });
      expect((await put(ctx, upload, data.subarray(0, 100))).received_bytes).toBe(100);
      const err = await apiError(completeUpload(ctx, { id: upload.id }), "invalid_parameter");
      expect(err.param).toBe("bytes");
      expect((await getUpload(ctx, { id: upload.id })).status).toBe("pending");
      await put(ctx, upload, data);
      expect((await completeUpload(ctx, { id: upload.id })).bytes).toBe(data.byteLength);
    });

    it("bytes that are not media are unsupported_media_type, and the upload stays open", async () => {
      const ctx = await workspaceCtx();
      const data = Buffer.from("this is just some text, not a sound at all".repeat(10));
      const upload = await openUpload(ctx, { filename: "fake.wav", content_type: "audio/wav", bytes: data.byteLength });
      await put(ctx, upload, data);
      expect((await apiError(completeUpload(ctx, { id: upload.id }), "unsupported_media_type")).status).toBe(415);
      expect((await getUpload(ctx, { id: upload.id })).status).toBe("pending");
      const files = await db.selectFrom("files").select("id").where("workspace_id", "=", ctx.workspaceId).execute();
      expect(files).toEqual([]);
    });

    /** A clip made by ffmpeg from its test sources: `-f lavfi` inputs, encoded into `format`. */
    async function clip(args: string[], format: string): Promise<Buffer> {
      const { stdout } = await runFfmpeg(defaultFfmpegPath(process.env.PATH ?? ""), [...args, "-f", format, "pipe:1"]);
      return stdout;
    }
    const SILENT_VIDEO = [
      "-f",
      "lavfi",
      "-i",
      "testsrc=d=2:s=96x64:r=10",
      "-pix_fmt",
      "yuv420p",
      "-movflags",
      "frag_keyframe+empty_moov",
    ];

    async function uploaded(ctx: Ctx, data: Buffer, filename: string, contentType: string): Promise<Upload> {
      const upload = await openUpload(ctx, { filename, content_type: contentType, bytes: data.byteLength });
      await put(ctx, upload, data);
      return upload;
    }

    it("a silent MP4 video (no sound track) becomes a File with its duration and picture size", async () => {
      const ctx = await workspaceCtx();
      const data = await clip(SILENT_VIDEO, "mp4");
      const file = await completeUpload(ctx, { id: (await uploaded(ctx, data, "screen.mp4", "video/mp4")).id });
      expect(file).toMatchObject({ content_type: "video/mp4", width: 96, height: 64 });
      expect(file.duration).toBeCloseTo(2, 1);
    });

    it("bytes of the other family than declared are unsupported_media_type: a sound declared as a video, a silent video as a sound", async () => {
      const ctx = await workspaceCtx();
      const sound = await uploaded(ctx, wav(0.5), "voice.mp4", "video/mp4");
      const soundErr = await apiError(completeUpload(ctx, { id: sound.id }), "unsupported_media_type");
      expect(soundErr.message).toContain("declared video/mp4");
      expect((await getUpload(ctx, { id: sound.id })).status).toBe("pending");
      const video = await uploaded(ctx, await clip(SILENT_VIDEO, "mp4"), "clip.m4a", "audio/mp4");
      expect((await apiError(completeUpload(ctx, { id: video.id }), "unsupported_media_type")).status).toBe(415);
      const files = await db.selectFrom("files").select("id").where("workspace_id", "=", ctx.workspaceId).execute();
      expect(files).toEqual([]);
    });

    it("answers 404 for another workspace's upload or an unknown one", async () => {
      const a = await workspaceCtx();
      const b = await workspaceCtx();
      const upload = await openUpload(a, { filename: "x.wav", content_type: "audio/wav", bytes: 10 });
      for (const id of [upload.id, "upl_000000000000000000000000", "file_000000000000000000000000"]) {
        await apiError(getUpload(b, { id }), "resource_not_found");
        await apiError(completeUpload(b, { id }), "resource_not_found");
      }
      const unknown = "upl_000000000000000000000000";
      const forged = sign(a.services.secretKey, "upload", `${unknown}\n9999999999`);
      await apiError(
        receiveUploadContent(
          { db, services: a.services },
          { id: unknown, expires: "9999999999", signature: forged, body: chunks(Buffer.from("x")) },
        ),
        "resource_not_found",
      );
      await apiError(
        openUpload({ ...a, scopes: ["generations:read"] }, { filename: "x.wav", content_type: "audio/wav", bytes: 10 }),
        "permission_denied",
      );
    });
  });
});
