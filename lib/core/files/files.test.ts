import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBlobLink } from "../../blobs/links";
import { finishRun } from "../../engine/finish";
import type { Db } from "../../store/database";
import { openTestStore, testCtx, testDialect, type TestStore } from "../../store/testing/test-store";
import type { Ctx } from "../context";
import { ApiError } from "../../primitives/errors";
import {
  cleanFilename,
  createImageFile,
  getFile,
  keepOutputAsFile,
  listFiles,
  type File,
  type FileList,
} from "./files";
import type { StoredOutput } from "../runs/generation-view";
import { createGeneration, listGenerations } from "../runs/generations";
import { createWorkspace } from "../workspaces/workspaces";

const USD = 1_000_000;
const MB4 = 4 * 1024 * 1024;

async function apiError(promise: Promise<unknown>, code: string): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe(code);
  return err as ApiError;
}

function png(width: number, height: number, colour = "#3366cc"): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

function linkQuery(url: string): Record<string, string> {
  return Object.fromEntries(new URL(url).searchParams.entries());
}

function blobKeyOf(url: string): string {
  return new URL(url).pathname.split("/").pop()!;
}

describe(`files (${testDialect()})`, () => {
  let t: TestStore;
  let db: Db;
  beforeAll(async () => {
    t = await openTestStore();
    db = t.store.db;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  async function workspaceCtx(): Promise<Ctx> {
    return testCtx(t, (await createWorkspace({ db }, { name: "files test", creditMicros: USD })).id);
  }

  async function fileCount(workspaceId: string): Promise<number> {
    const row = await db
      .selectFrom("files")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A succeeded run of `ctx` with the given outputs, ended as a worker would end it. */
  async function succeededRun(
    ctx: Ctx,
    outputs: Array<{ type: StoredOutput["type"]; data: Buffer; content_type: string; width?: number; height?: number }>,
  ) {
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "kept" } });
    await db
      .updateTable("generations")
      .set({
        status: "running",
        lease_owner: "files-test",
        lease_expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      })
      .where("id", "=", generation.id)
      .execute();
    const stored: StoredOutput[] = [];
    for (const o of outputs) {
      stored.push({
        type: o.type,
        blob: await ctx.services.blobs.put(o.data),
        content_type: o.content_type,
        bytes: o.data.byteLength,
        width: o.width,
        height: o.height,
      });
    }
    expect(
      await finishRun(db, ctx.services, {
        id: generation.id,
        owner: "files-test",
        outcome: { status: "succeeded", outputs: stored },
      }),
    ).not.toBeNull();
    return { id: generation.id, stored };
  }

  describe("createImageFile", () => {
    it("measures the image: type, size and bytes come from the bytes, not the name", async () => {
      const ctx = await workspaceCtx();
      const data = await png(40, 30);
      const file = await createImageFile(ctx, { data, filename: "holiday photo.jpg" });
      expect(file.id).toMatch(/^file_[0-9A-Za-z]{24}$/);
      expect(file).toMatchObject({
        object: "file",
        content_type: "image/png",
        bytes: data.byteLength,
        width: 40,
        height: 30,
        duration: null,
        filename: "holiday photo.jpg",
      });
      expect(checkBlobLink(ctx.services.secretKey, blobKeyOf(file.url), linkQuery(file.url))).toEqual({
        ok: true,
        contentType: "image/png",
      });
      expect(Date.parse(file.expires_at)).toBeGreaterThan(Date.now());
      expect(await ctx.services.blobs.size(blobKeyOf(file.url))).toBe(data.byteLength);
      const { url: _url, expires_at: _expires, ...stable } = file;
      const read = await getFile(ctx, { id: file.id });
      expect(read).toMatchObject(stable);
    });

    it("recognises JPEG and WebP too", async () => {
      const ctx = await workspaceCtx();
      const base = sharp({ create: { width: 17, height: 9, channels: 3, background: "#ff8800" } });
      const jpeg = await createImageFile(ctx, { data: await base.clone().jpeg().toBuffer(), filename: "a.png" });
      const webp = await createImageFile(ctx, { data: await base.clone().webp().toBuffer() });
      expect([jpeg.content_type, jpeg.width, jpeg.height]).toEqual(["image/jpeg", 17, 9]);
      expect([webp.content_type, webp.width, webp.height, webp.filename]).toEqual(["image/webp", 17, 9, null]);
    });

    it("refuses more than 4 MB with payload_too_large, before reading it", async () => {
      const ctx = await workspaceCtx();
      const err = await apiError(createImageFile(ctx, { data: Buffer.alloc(MB4 + 1) }), "payload_too_large");
      expect(err.status).toBe(413);
      // Exactly 4 MB is within the limit (and then refused for not being an image).
      await apiError(createImageFile(ctx, { data: Buffer.alloc(MB4) }), "unsupported_media_type");
      expect(await fileCount(ctx.workspaceId)).toBe(0);
    });

    it("refuses bytes that are not an image with unsupported_media_type, and an empty file", async () => {
      const ctx = await workspaceCtx();
      const text = await apiError(
        createImageFile(ctx, { data: Buffer.from("hello, I am text"), filename: "a.png" }),
        "unsupported_media_type",
      );
      expect(text.status).toBe(415);
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
      await apiError(createImageFile(ctx, { data: svg }), "unsupported_media_type");
      const truncated = (await png(20, 20)).subarray(0, 30);
      await apiError(createImageFile(ctx, { data: truncated }), "unsupported_media_type");
      expect((await apiError(createImageFile(ctx, { data: Buffer.alloc(0) }), "invalid_parameter")).param).toBe("file");
      expect(await fileCount(ctx.workspaceId)).toBe(0);
    });

    it("needs the write scope", async () => {
      const ctx = await workspaceCtx();
      await apiError(
        createImageFile({ ...ctx, scopes: ["generations:read"] }, { data: await png(2, 2) }),
        "permission_denied",
      );
      expect(await fileCount(ctx.workspaceId)).toBe(0);
    });

    it("keeps only the base name of a file name, without control characters", () => {
      expect(cleanFilename("../../etc/passwd")).toBe("passwd");
      expect(cleanFilename("C:\\Users\\me\\cat.png")).toBe("cat.png");
      expect(cleanFilename("a\u0000b\u001fc\u007f.png")).toBe("abc.png");
      expect(cleanFilename("  spaced.png  ")).toBe("spaced.png");
      expect(cleanFilename("dir/")).toBeNull();
      expect(cleanFilename("")).toBeNull();
      expect(cleanFilename(null)).toBeNull();
      expect(cleanFilename("x".repeat(300))).toHaveLength(255);
    });
  });

  describe("getFile", () => {
    it("answers 404 for another workspace's file or a non-file ID", async () => {
      const a = await workspaceCtx();
      const b = await workspaceCtx();
      const file = await createImageFile(a, { data: await png(3, 3) });
      for (const id of [file.id, "file_000000000000000000000000", "gen_000000000000000000000000"]) {
        expect((await apiError(getFile(b, { id }), "resource_not_found")).status).toBe(404);
      }
    });
  });

  describe("listFiles", () => {
    async function allPages(ctx: Ctx, limit: string): Promise<FileList[]> {
      const pages: FileList[] = [];
      let cursor: string | undefined;
      do {
        const page = await listFiles(ctx, { limit, cursor });
        expect(page.object).toBe("list");
        expect(page.url).toBe("/v1/files");
        pages.push(page);
        cursor = page.next_cursor ?? undefined;
        expect(page.has_more).toBe(cursor !== undefined);
      } while (cursor);
      return pages;
    }

    it("pages through the workspace's files newest first, each once, others' never", async () => {
      const ctx = await workspaceCtx();
      const other = await workspaceCtx();
      await createImageFile(other, { data: await png(5, 5) });
      const made: File[] = [];
      for (let i = 0; i < 7; i++)
        made.push(await createImageFile(ctx, { data: await png(i + 1, 1), filename: `f${i}.png` }));
      for (const [i, file] of made.entries()) {
        await db
          .updateTable("files")
          .set({ created_at: `2030-01-01T00:00:0${i}.000Z` })
          .where("id", "=", file.id)
          .execute();
      }
      const pages = await allPages(ctx, "3");
      expect(pages.map((p) => p.data.length)).toEqual([3, 3, 1]);
      expect(pages.flatMap((p) => p.data.map((f) => f.id))).toEqual(made.map((f) => f.id).reverse());
      expect((await listFiles(ctx, {})).data).toHaveLength(7);
    });

    it("refuses a bad limit, a tampered cursor and a generations cursor", async () => {
      const ctx = await workspaceCtx();
      for (let i = 0; i < 3; i++) await createImageFile(ctx, { data: await png(2, 2) });
      for (const limit of ["0", "101", "x"])
        expect((await apiError(listFiles(ctx, { limit }), "invalid_parameter")).param).toBe("limit");
      const page = await listFiles(ctx, { limit: "1" });
      const cursor = page.next_cursor!;
      const tampered = cursor.slice(0, 2) + (cursor[2] === "A" ? "B" : "A") + cursor.slice(3);
      expect((await apiError(listFiles(ctx, { cursor: tampered }), "invalid_parameter")).param).toBe("cursor");
      // A cursor of another list is bound to that list's filters.
      await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "a" } });
      await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "b" } });
      const generations = await listGenerations(ctx, { limit: "1" });
      expect((await apiError(listFiles(ctx, { cursor: generations.next_cursor! }), "invalid_parameter")).param).toBe(
        "cursor",
      );
      expect((await apiError(listGenerations(ctx, { cursor }), "invalid_parameter")).param).toBe("cursor");
    });
  });

  describe("keepOutputAsFile", () => {
    it("keeps an image output as a file; keeping it again returns the same file", async () => {
      const ctx = await workspaceCtx();
      const image = await png(12, 8);
      const { id, stored } = await succeededRun(ctx, [
        { type: "image", data: await png(4, 4), content_type: "image/png", width: 4, height: 4 },
        { type: "image", data: image, content_type: "image/png", width: 12, height: 8 },
      ]);
      const file = await keepOutputAsFile(ctx, { id, index: "1" });
      expect(file).toMatchObject({
        object: "file",
        content_type: "image/png",
        bytes: image.byteLength,
        width: 12,
        height: 8,
        duration: null,
        filename: `${id}-1.png`,
      });
      // The same bytes, not a copy.
      const row = await db.selectFrom("files").selectAll().where("id", "=", file.id).executeTakeFirstOrThrow();
      expect([row.blob, row.generation_id, row.output_index]).toEqual([stored[1]!.blob, id, 1]);
      const again = await keepOutputAsFile(ctx, { id, index: "1" });
      expect(again.id).toBe(file.id);
      expect((await keepOutputAsFile(ctx, { id, index: "0" })).id).not.toBe(file.id);
      expect(await fileCount(ctx.workspaceId)).toBe(2);
      expect((await getFile(ctx, { id: file.id })).id).toBe(file.id);
    });

    it("concurrent keeps of one output make one file", async () => {
      const ctx = await workspaceCtx();
      const { id } = await succeededRun(ctx, [
        { type: "image", data: await png(6, 6), content_type: "image/png", width: 6, height: 6 },
      ]);
      const files = await Promise.all(Array.from({ length: 10 }, () => keepOutputAsFile(ctx, { id, index: "0" })));
      expect(new Set(files.map((f) => f.id)).size).toBe(1);
      expect(await fileCount(ctx.workspaceId)).toBe(1);
    });

    it("refuses a bad index, an output out of range, a non-image output and a run that has not succeeded", async () => {
      const ctx = await workspaceCtx();
      const { id } = await succeededRun(ctx, [
        { type: "image", data: await png(2, 2), content_type: "image/png", width: 2, height: 2 },
        { type: "video", data: Buffer.from("not a video"), content_type: "video/mp4", width: 2, height: 2 },
      ]);
      for (const index of ["64", "-1", "x", "", "1.0", "100"]) {
        expect((await apiError(keepOutputAsFile(ctx, { id, index }), "invalid_parameter")).param).toBe("index");
      }
      expect((await apiError(keepOutputAsFile(ctx, { id, index: "2" }), "invalid_parameter")).param).toBe("index");
      expect((await apiError(keepOutputAsFile(ctx, { id, index: "63" }), "invalid_parameter")).param).toBe("index");
      const video = await apiError(keepOutputAsFile(ctx, { id, index: "1" }), "invalid_parameter");
      expect([video.param, video.message]).toEqual(["index", expect.stringMatching(/video/)]);

      const { generation: queued } = await createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "q" } });
      expect((await apiError(keepOutputAsFile(ctx, { id: queued.id, index: "0" }), "invalid_parameter")).param).toBe(
        "id",
      );
      expect(await fileCount(ctx.workspaceId)).toBe(0);
    });

    it("answers 404 for another workspace's run, and needs the write scope", async () => {
      const a = await workspaceCtx();
      const b = await workspaceCtx();
      const { id } = await succeededRun(a, [
        { type: "image", data: await png(2, 2), content_type: "image/png", width: 2, height: 2 },
      ]);
      for (const gid of [id, "gen_000000000000000000000000", "file_000000000000000000000000"]) {
        await apiError(keepOutputAsFile(b, { id: gid, index: "0" }), "resource_not_found");
      }
      await apiError(keepOutputAsFile({ ...a, scopes: ["generations:read"] }, { id, index: "0" }), "permission_denied");
      expect(await fileCount(a.workspaceId)).toBe(0);
      expect(await fileCount(b.workspaceId)).toBe(0);
    });
  });
});
