// Where file and output bytes live: a local directory by default. Keys are random and
// never reused, so a blob is written once and never changes.
import { createReadStream, existsSync } from "node:fs";
import { mkdir, open, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { randomBase62 } from "../core/ids";

export class BlobTooLargeError extends Error {}

export interface BlobStore {
  put(data: Buffer): Promise<string>;
  /** Streams bytes into a new blob; throws BlobTooLargeError (and keeps nothing) past maxBytes. */
  putStream(source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<{ key: string; bytes: number }>;
  size(key: string): Promise<number | null>;
  read(key: string, range?: { start: number; end: number }): Readable;
  pathOf(key: string): string;
}

const KEY_PATTERN = /^[0-9A-Za-z]{32}$/;

export function isBlobKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function localBlobStore(dataDir: string): BlobStore {
  const root = path.join(dataDir, "blobs");
  const pathOf = (key: string) => {
    if (!isBlobKey(key)) throw new Error(`not a blob key: ${key}`);
    return path.join(root, key.slice(0, 2), key);
  };
  return {
    pathOf,
    async put(data) {
      const key = randomBase62(32);
      const file = pathOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      // Write then rename, so a reader never sees half a blob.
      await writeFile(`${file}.tmp`, data);
      await rename(`${file}.tmp`, file);
      return key;
    },
    async putStream(source, maxBytes) {
      const key = randomBase62(32);
      const file = pathOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      const handle = await open(`${file}.tmp`, "w");
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
        await rm(`${file}.tmp`, { force: true });
        throw err;
      }
      await rename(`${file}.tmp`, file);
      return { key, bytes };
    },
    async size(key) {
      if (!isBlobKey(key) || !existsSync(pathOf(key))) return null;
      return (await stat(pathOf(key))).size;
    },
    read(key, range) {
      return createReadStream(pathOf(key), range ? { start: range.start, end: range.end } : undefined);
    },
  };
}
