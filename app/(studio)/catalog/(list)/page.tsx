import { listCatalog } from "@/lib/core/catalog/catalog";
import { catalogCardImages } from "@/lib/core/catalog/example-outputs";
import { getRuntime } from "@/lib/boot/runtime";
import { CatalogBrowser } from "@/components/catalog-browser";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";

export const metadata = { title: "Catalog · Atelier" };

export default async function CatalogPage() {
  const ctx = await requireStudioCtx();
  const [{ data }, { services }] = await Promise.all([listCatalog(ctx.db), getRuntime()]);
  const { images, making } = catalogCardImages(
    services.examplePictures,
    data.map((m) => m.id),
  );
  return (
    <div className="mx-auto max-w-6xl">
      <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Catalog</h1>
      <p className="mt-1 mb-6 text-sm text-zinc-500">Every model and preset this workspace can run, with its price.</p>
      <CatalogBrowser models={data} images={images} making={making} />
    </div>
  );
}
