"use server";
// The Budgets page's changes: set and clear a cap, and the low-balance alert, through the core
// verbs with the signed-in member's Ctx (their role decides, and each change is audited with them).
// The core's ApiError comes back as {message, param}, for the form to place under the field it names.
import { revalidatePath } from "next/cache";
import { clearBudget, setBudget } from "@/lib/core/budgets/budgets";
import { clearLowCreditAlert, setLowCreditAlert } from "@/lib/core/credits/low-credit";
import { actionError } from "@/app/_studio/action-error";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";
import type { ActionResult } from "@/app/_studio/actions/webhooks";

/** Whom a budget is on, as the page's picker names it: the workspace, a member by email, or a key. */
export type BudgetSubjectChoice = { member?: string; key?: string };

async function attempt<T>(work: (ctx: Awaited<ReturnType<typeof requireStudioCtx>>) => Promise<T>) {
  const ctx = await requireStudioCtx();
  try {
    const value = await work(ctx);
    revalidatePath("/budgets");
    return { ok: true, value } as const;
  } catch (err) {
    const { message, param } = actionError(err);
    return { ok: false, message, param } as const;
  }
}

/** Sets the caps given (a blank one is left as it is). */
export async function setBudgetAction(
  subject: BudgetSubjectChoice,
  caps: { daily: string; monthly: string },
): Promise<ActionResult<null>> {
  return attempt(async (ctx) => {
    await setBudget(ctx, {
      ...subject,
      ...(caps.daily.trim() !== "" && { daily: caps.daily }),
      ...(caps.monthly.trim() !== "" && { monthly: caps.monthly }),
    });
    return null;
  });
}

/** Clears one cap, or (neither named) the whole budget. */
export async function clearBudgetAction(
  subject: BudgetSubjectChoice,
  only: "daily" | "monthly" | null,
): Promise<ActionResult<null>> {
  return attempt(async (ctx) => {
    await clearBudget(ctx, { ...subject, ...(only && { [only]: true }) });
    return null;
  });
}

/** Sets the low-balance alert's threshold (US dollars, as typed). */
export async function setLowCreditAction(usd: string): Promise<ActionResult<null>> {
  return attempt(async (ctx) => {
    await setLowCreditAlert(ctx, { usd });
    return null;
  });
}

/** Removes the low-balance alert. */
export async function clearLowCreditAction(): Promise<ActionResult<null>> {
  return attempt(async (ctx) => {
    await clearLowCreditAlert(ctx);
    return null;
  });
}
