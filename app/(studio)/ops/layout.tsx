import type { ReactNode } from "react";
import { requireOps } from "@/app/_studio/studio-ctx";

// Operators only. Checked here, outside the page's loading boundary, so that anyone else gets a
// real 404 status (a notFound() inside a streamed page would already have sent 200). This is not
// what keeps the data in: Next renders the page alongside its layout, so every ops page and
// action asks for the principal itself (requireOps) before it reads anything.
export default async function OpsLayout({ children }: { children: ReactNode }) {
  await requireOps();
  return children;
}
