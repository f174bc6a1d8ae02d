// Where file and output bytes live: a local directory by default, an S3-compatible bucket when
// S3_BUCKET is set (s3-blob-store.ts). Keys are random and never reused, so a blob is written once
// and never changes.
import { createReadStream } from "node:fs";
import { copyFile, link, mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { randomBase62 } from "../primitives/ids";

export class BlobTooLargeError extends Error {}

/** Reading a key that holds no bytes (never written, or deleted). */
export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`no blob ${key}`);
    this.name = "BlobNotFoundError";
  }
}

export interface BlobLinkRequest {
  contentType: string;
  /** Answer `Content-Disposition: attachment` with this (already safe) name. */
  filename?: string;
  /** When the link stops working. */
  expiresAt: Date;
  /** When it counts as made (default: now): `expiresAt` minus the validity, from the caller's one clock read. */
  signedAt?: Date;
}

export interface BlobStore {
  /** "disk": the API serves the bytes itself (/v1/blobs/…); "s3": links and uploads go to the bucket. */
  readonly kind: "disk" | "s3";
  /** A fresh key for a blob written later (a direct upload's PUT). */
  newKey(): string;
  put(data: Buffer, contentType?: string): Promise<string>;
  /** Streams bytes into a new blob; throws BlobTooLargeError (and keeps nothing) past maxBytes. */
  putStream(
    source: AsyncIterable<Uint8Array>,
    maxBytes: number,
    contentType?: string,
    key?: string,
  ): Promise<{ key: string; bytes: number }>;
  /**
   * A new key holding the bytes `key` holds now; writes to `key` afterwards do not reach it.
   * A direct upload's key can still be written to after the upload is completed (the bucket's
   * presigned PUT lives on), so what completing checks and keeps is such a copy. Throws
   * BlobNotFoundError when `key` holds nothing.
   */
  snapshot(key: string): Promise<string>;
  /** The blob's size in bytes, or null when the key holds nothing. */
  size(key: string): Promise<number | null>;
  /** The bytes (`end` inclusive); throws BlobNotFoundError. */
  read(key: string, range?: { start: number; end: number }): Promise<Readable>;
  readAll(key: string): Promise<Buffer>;
  /**
   * Runs `use` with a local file holding the blob (ffmpeg and sharp want paths). From a bucket it
   * is a temporary copy, removed when `use` settles.
   */
  withLocalFile<T>(key: string, use: (file: string) => Promise<T>): Promise<T>;
  /** A presigned bucket URL to read the blob until `expiresAt`; null when links go through the API (disk). */
  signedReadUrl(key: string, link: BlobLinkRequest): Promise<string | null>;
  /** A presigned bucket URL to PUT exactly `bytes` into `key` until `expiresAt`; null when uploads go through the API (disk). */
  signedPutUrl(key: string, upload: { bytes: number; expiresAt: Date }): Promise<string | null>;
  delete(key: string): Promise<void>;
  /** Throws when the storage cannot be reached (GET /readyz). */
  check(): Promise<void>;
}

const KEY_PATTERN = /^[0-9A-Za-z]{32}$/;

export function isBlobKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** Where each key lives under `root`, sharded by its first two characters (blobs on disk, the catalog pictures). */
export function shardedDirectory(root: string): { pathOf(key: string): string } {
  return {
    pathOf(key) {
      if (!isBlobKey(key)) throw new Error(`not a blob key: ${key}`);
      return path.join(root, key.slice(0, 2), key);
    },
  };
}

export function newBlobKey(): string {
  return randomBase62(32);
}

export async function readAllOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export function localBlobStore(dataDir: string): BlobStore {
  const root = path.join(dataDir, "blobs");
  const { pathOf } = shardedDirectory(root);
  const sizeOf = async (key: string): Promise<number | null> => {
    if (!isBlobKey(key)) return null;
    try {
      return (await stat(pathOf(key))).size;
    } catch {
      return null;
    }
  };
  const store: BlobStore = {
    kind: "disk",
    newKey: newBlobKey,
    async put(data) {
      const key = newBlobKey();
      const file = pathOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      // Write then rename, so a reader never sees half a blob.
      await writeFile(`${file}.tmp`, data);
      await rename(`${file}.tmp`, file);
      return key;
    },
    async putStream(source, maxBytes, _contentType, chosenKey) {
      const key = chosenKey ?? newBlobKey();
      const file = pathOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      const temporary = `${file}.${randomBase62(8)}.tmp`;
      const handle = await open(temporary, "w");
      let bytes = 0;
      try {
        for await (const chunk of source) {
          bytes += chunk.byteLength;
          if (bytes > maxBytes) throw new BlobTooLargeError(`more than ${maxBytes} bytes`);
          await handle.write(chunk);
        }
        await handle.close();
      } catch (err) {
        await handle.close().catch(() => undefined);
        await rm(temporary, { force: true });
        throw err;
      }
      await rename(temporary, file);
      return { key, bytes };
    },
    async snapshot(key) {
      if ((await sizeOf(key)) === null) throw new BlobNotFoundError(key);
      const copy = newBlobKey();
      const file = pathOf(copy);
      await mkdir(path.dirname(file), { recursive: true });
      // A hard link is the same bytes at no cost: a later PUT to `key` renames a new file over
      // that name, it never writes into this one. Where links are refused, a copy.
      try {
        await link(pathOf(key), file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new BlobNotFoundError(key);
        await copyFile(pathOf(key), `${file}.tmp`);
        await rename(`${file}.tmp`, file);
      }
      return copy;
    },
    size: sizeOf,
    async read(key, range) {
      if ((await sizeOf(key)) === null) throw new BlobNotFoundError(key);
      return createReadStream(pathOf(key), range ? { start: range.start, end: range.end } : undefined);
    },
    async readAll(key) {
      if ((await sizeOf(key)) === null) throw new BlobNotFoundError(key);
      return readFile(pathOf(key));
    },
    async withLocalFile(key, use) {
      if ((await sizeOf(key)) === null) throw new BlobNotFoundError(key);
      return use(pathOf(key));
    },
    async signedReadUrl() {
      return null;
    },
    async signedPutUrl() {
      return null;
    },
    async delete(key) {
      if (isBlobKey(key)) await rm(pathOf(key), { force: true });
    },
    async check() {
      await mkdir(root, { recursive: true });
    },
  };
  return store;
}
