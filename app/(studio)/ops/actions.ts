"use server";
// Operator actions: only a signed-in user with the ops role may add credit.
import { revalidatePath } from "next/cache";
import { notFound } from "next/navigation";
import { grantCredit } from "@/lib/core/credits";
import { formatUsd, parseUsd } from "@/lib/core/money";
import { findWorkspace } from "@/lib/core/workspaces";
import { actionError } from "../action-error";
import { requireStudioCtx } from "../studio-ctx";

export type GrantResult = { ok: true; message: string } | { ok: false; message: string };

export async function grantCreditAction(_previous: GrantResult | null, form: FormData): Promise<GrantResult> {
  const ctx = await requireStudioCtx();
  if (ctx.user.role !== "ops") notFound();
  const workspaceId = String(form.get("workspace") ?? "");
  const amount = String(form.get("amount") ?? "").trim().replace(/^\$/, "");
  const micros = parseUsd(amount);
  if (micros === null || micros <= 0) return { ok: false, message: "Enter an amount in dollars greater than zero, such as 5 or 12.50." };
  const note = String(form.get("note") ?? "").trim().slice(0, 200) || `added in the studio by ${ctx.user.email}`;
  try {
    const balance = await grantCredit(ctx, { workspaceId, amountMicros: micros, note });
    revalidatePath("/", "layout");
    const name = (await findWorkspace(ctx, workspaceId))?.name ?? workspaceId;
    return { ok: true, message: `Added $${formatUsd(micros)} to ${name}, which now has $${formatUsd(balance.availableMicros)} available.` };
  } catch (err) {
    return { ok: false, message: actionError(err).message };
  }
}
