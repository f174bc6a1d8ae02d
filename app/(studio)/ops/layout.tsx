import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { requireStudioCtx } from "../studio-ctx";

// Operators only. Checked here, outside the page's loading boundary, so that anyone else gets a
// real 404 status (a notFound() inside a streamed page would already have sent 200).
export default async function OpsLayout({ children }: { children: ReactNode }) {
  const ctx = await requireStudioCtx();
  if (ctx.user.role !== "ops") notFound();
  return children;
}
