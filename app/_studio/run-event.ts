// What each `run` event of the studio's live-run stream (app/api/runs/events) carries: the route
// writes it, components/use-live-runs.ts reads it.
import type { Generation } from "@/lib/core/runs/generation-view";

export interface StudioRunEvent {
  generation: Generation;
  uncancelable_reason: string | null;
}
