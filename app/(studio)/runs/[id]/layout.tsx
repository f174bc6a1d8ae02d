import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { ApiError } from "@/lib/primitives/errors";
import { getGeneration } from "@/lib/core/runs/generations";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";

// A run of another workspace (or none) is a 404. Checked here, outside the page's loading
// boundary: a notFound() inside the streamed page would come after a 200 status was sent.
export default async function RunLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ id: string }>;
}) {
  const { id } = await params;
  const ctx = await requireStudioCtx();
  try {
    await getGeneration(ctx, { id });
  } catch (err) {
    if (err instanceof ApiError && err.code === "resource_not_found") notFound();
    throw err;
  }
  return children;
}
