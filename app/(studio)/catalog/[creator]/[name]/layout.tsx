import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { findCatalogEntry } from "@/lib/core/catalog/catalog";
import { ApiError } from "@/lib/primitives/errors";
import { getRuntime } from "@/lib/boot/runtime";
import { modelIdOf } from "./model-id";

// An ID that is not in the catalog is a 404, decided here, outside the page's loading boundary
// (a notFound() inside the streamed page would come after a 200 status). A retired entry is
// no 404: the page says it was retired and names its replacement.
export default async function ModelLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ creator: string; name: string }>;
}) {
  const { creator, name } = await params;
  // The catalog holds what boot installs (built-in and remote models): this layout may run
  // before anything else in this Next process has asked for the runtime.
  await getRuntime();
  try {
    findCatalogEntry(modelIdOf(creator, name));
  } catch (err) {
    // Not in the catalog, or not even a well-formed ID (a broken %-escape).
    if (!(err instanceof ApiError && err.code === "gone")) notFound();
  }
  return children;
}
