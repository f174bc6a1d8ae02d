// Catalog card pictures (lib/core/catalog/example-outputs.ts) stay on each process's disk even with a
// bucket: they are made again from the catalog at will, so they are a cache, not stored data.
import path from "node:path";
import { shardedDirectory } from "./blob-store";

export interface PictureDirectory {
  /** The directory itself (another thread opens it with `pictureDirectoryAt`). */
  root: string;
  /** Where the picture of `key` (32 hex or base62 characters) lives. */
  pathOf(key: string): string;
}

export function pictureDirectoryAt(root: string): PictureDirectory {
  return { root, ...shardedDirectory(root) };
}

/** DATA_DIR/example-pictures. */
export function examplePictureDirectory(dataDir: string): PictureDirectory {
  return pictureDirectoryAt(path.join(dataDir, "example-pictures"));
}
