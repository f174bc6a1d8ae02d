// The balance the studio's top bar shows, read for the layout's render and for BalanceBadge's
// reads after a page changed it (balance-actions.ts).
import type { Ctx } from "@/lib/core/context";
import { presentCredits, readBalance } from "@/lib/core/credits/credits";

export interface StudioBalance {
  available_usd: string;
  /** Null when nothing is held. */
  held_usd: string | null;
  /** Under $1 available: the top bar says to ask ops for more. */
  low: boolean;
}

export async function studioBalance(ctx: Pick<Ctx, "db" | "workspaceId">): Promise<StudioBalance> {
  const balance = await readBalance(ctx.db, ctx.workspaceId);
  const credits = presentCredits(balance);
  return {
    available_usd: credits.available_usd,
    held_usd: balance.heldMicros > 0 ? credits.held_usd : null,
    low: balance.availableMicros < 1_000_000,
  };
}
