// Catalog card pictures (lib/core/catalog/example-outputs.ts): public, like the catalog they illustrate.
// The address names the picture's key, which changes whenever the picture would, so browsers may
// keep it for good. Only keys of catalog entries' pictures are served, never another blob.
import { readFile } from "node:fs/promises";
import { isExampleKey } from "@/lib/core/catalog/example-outputs";
import { getRuntime } from "@/lib/boot/runtime";

export const dynamic = "force-dynamic";

const notFound = () =>
  new Response("Not found", {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });

export async function GET(_request: Request, { params }: { params: Promise<{ file: string }> }): Promise<Response> {
  const { file } = await params;
  const { services } = await getRuntime();
  const key = /^([0-9a-f]{32})\.webp$/.exec(file)?.[1];
  if (!key || !isExampleKey(key)) return notFound();
  let data: Buffer;
  try {
    data = await readFile(services.examplePictures.pathOf(key));
  } catch {
    return notFound();
  }
  return new Response(new Uint8Array(data), {
    headers: {
      "content-type": "image/webp",
      "content-length": String(data.byteLength),
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
    },
  });
}
