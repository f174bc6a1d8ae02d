"use server";
// The top bar's balance read again on its own (components/balance-badge.tsx).
import { requireStudioCtx } from "@/app/_studio/studio-ctx";
import { studioBalance, type StudioBalance } from "@/app/_studio/studio-balance";

export async function readBalanceAction(): Promise<StudioBalance> {
  return studioBalance(await requireStudioCtx());
}
