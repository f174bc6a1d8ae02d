import Link from "next/link";
import { listCatalog } from "@/lib/core/catalog/catalog";
import { catalogCardImages } from "@/lib/core/catalog/example-outputs";
import { getRuntime } from "@/lib/boot/runtime";
import { CatalogBrowser } from "@/components/catalog-browser";
import { studioUser } from "../auth";
import { SignInFirst } from "./sign-in-first";

export const dynamic = "force-dynamic";
export const metadata = { title: "Models · Atelier" };

// The public catalog, for visitors who are not signed in (the same entries as GET /v1/public/models).
export default async function ExplorePage() {
  const [{ store, services }, user] = await Promise.all([getRuntime(), studioUser()]);
  const { data } = await listCatalog(store.db);
  const { images, making } = catalogCardImages(
    services.examplePictures,
    data.map((m) => m.id),
  );
  return (
    <div className="min-h-screen bg-zinc-50">
      <header className="flex items-center justify-between border-b border-zinc-200 bg-white px-6 py-3">
        <Link href="/" className="text-lg font-semibold tracking-tight text-zinc-900">
          Atelier<span className="text-indigo-600">.</span>
        </Link>
        <Link
          href={user ? "/catalog" : "/sign-in"}
          className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          {user ? "Open the studio" : "Sign in to run"}
        </Link>
      </header>
      <main className="mx-auto max-w-6xl px-6 py-8">
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Models</h1>
        <p className="mt-1 mb-6 text-sm text-zinc-500">
          Every model and preset Atelier runs, with its price. Sign in to run one in the studio, or call it with an API
          key at <code className="font-mono text-xs">/v1</code>.
        </p>
        {/* Signed out: a model's link goes through sign-in and back to that model. */}
        <SignInFirst enabled={!user}>
          <CatalogBrowser models={data} images={images} making={making} />
        </SignInFirst>
      </main>
    </div>
  );
}
