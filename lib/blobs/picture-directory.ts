// Catalog card pictures (lib/core/example-outputs.ts) stay on each process's disk even with a
// bucket: they are made again from the catalog at will, so they are a cache, not stored data.
import path from "node:path";

export interface PictureDirectory {
  /** Where the picture of `key` (32 hex or base62 characters) lives. */
  pathOf(key: string): string;
}

export function pictureDirectory(root: string): PictureDirectory {
  return {
    pathOf(key) {
      if (!/^[0-9A-Za-z]{32}$/.test(key)) throw new Error(`not a picture key: ${key}`);
      return path.join(root, key.slice(0, 2), key);
    },
  };
}

/** DATA_DIR/example-pictures. */
export function examplePictureDirectory(dataDir: string): PictureDirectory {
  return pictureDirectory(path.join(dataDir, "example-pictures"));
}
