// The run page's "Share" card: a server component that reads the run's links, then hands them to
// the live panel (share-panel-view.tsx). Place it inside the page's QueryProvider: the panel
// follows the run, so a run that succeeds while the page is open can be shared at once.
import type { Generation } from "@/lib/core/runs/generation-view";
import { listShareLinks } from "@/lib/core/shares/share-links";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";
import { SharePanelView } from "./share-panel-view";

export async function SharePanel({ run }: { run: Generation }) {
  const ctx = await requireStudioCtx();
  const links = await listShareLinks(ctx, { runId: run.id });
  return <SharePanelView initial={run} links={links} />;
}
