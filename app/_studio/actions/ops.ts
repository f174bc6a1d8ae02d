"use server";
// Operator actions: only a signed-in user with the ops role may add credit, pause and resume
// models. Each asks for the ops principal first (anyone else gets the 404), and the verbs take
// nothing else.
import { revalidatePath } from "next/cache";
import { formatUsd, parseUsd } from "@/lib/primitives/money";
import { OPS_PAUSE_HOURS, opsCreateWorkspace, opsGrantCredit, opsPauseModel, opsResumeModel } from "@/lib/core/ops/ops";
import { getRuntime } from "@/lib/boot/runtime";
import { mailInvitation } from "@/lib/boot/invite";
import { actionError } from "@/app/_studio/action-error";
import { requireOps } from "@/app/_studio/studio-ctx";

export type GrantResult = { ok: true; message: string } | { ok: false; message: string };

export async function grantCreditAction(_previous: GrantResult | null, form: FormData): Promise<GrantResult> {
  const { ops } = await requireOps();
  const workspaceId = String(form.get("workspace") ?? "");
  const amount = String(form.get("amount") ?? "")
    .trim()
    .replace(/^\$/, "");
  const micros = parseUsd(amount);
  if (micros === null || micros <= 0)
    return { ok: false, message: "Enter an amount in dollars greater than zero, such as 5 or 12.50." };
  // Empty: the note says which operator added it.
  const note = String(form.get("note") ?? "")
    .trim()
    .slice(0, 200);
  try {
    const { workspace, balance } = await opsGrantCredit(ops, { workspaceId, amountMicros: micros, note });
    revalidatePath("/", "layout");
    return {
      ok: true,
      message: `Added $${formatUsd(micros)} to ${workspace.name}, which now has $${formatUsd(balance.availableMicros)} available.`,
    };
  } catch (err) {
    return { ok: false, message: actionError(err).message };
  }
}

export type NewWorkspaceResult =
  { ok: true; message: string; link: string } | { ok: false; message: string; param: string | null };

/** A new workspace and its first owner's invitation: the link shown here once, and mailed with SMTP_URL. */
export async function createWorkspaceAction(
  _previous: NewWorkspaceResult | null,
  form: FormData,
): Promise<NewWorkspaceResult> {
  const { ops } = await requireOps();
  try {
    const { workspace, invitation } = await opsCreateWorkspace(ops, {
      name: String(form.get("name") ?? ""),
      ownerEmail: String(form.get("owner") ?? ""),
    });
    const { store, config } = await getRuntime();
    const { link, mail } = await mailInvitation(store.db, invitation, config, ops.operator);
    revalidatePath("/ops");
    const mailed =
      mail.state === "sent"
        ? `mailed to ${invitation.email}`
        : mail.state === "failed"
          ? `not mailed (${mail.reason}): pass the link on to ${invitation.email}`
          : `pass the link on to ${invitation.email}`;
    return { ok: true, message: `Made ${workspace.name}; its owner's invitation is ${mailed}. Shown once:`, link };
  } catch (err) {
    const { message, param } = actionError(err);
    return { ok: false, message, param };
  }
}

export type PauseResult = { ok: true; message: string } | { ok: false; message: string; param: string | null };

/**
 * Takes a catalog entry out of service, as `admin model pause` does (same core verb): its quotes
 * and new runs answer 503, its catalog entry says why, its queued runs wait.
 */
export async function pauseModelAction(
  modelId: string,
  input: { reason: string; hours: number | null },
): Promise<PauseResult> {
  const { ops } = await requireOps();
  const hours = input.hours === null ? null : OPS_PAUSE_HOURS.find((h) => h === input.hours);
  if (hours === undefined)
    return { ok: false, message: "Choose how long: until resumed, or 1, 4 or 24 hours.", param: "until" };
  // Empty: the admin CLI's default words.
  const reason = input.reason.trim().slice(0, 200) || "it is paused for maintenance";
  try {
    const until = hours === null ? null : new Date(Date.now() + hours * 3_600_000).toISOString();
    const paused = await opsPauseModel(ops, { modelId, until, reason });
    revalidatePath("/", "layout");
    return {
      ok: true,
      message: `${paused.model} is out of service${paused.until ? ` until ${paused.until}` : " until resumed"}.`,
    };
  } catch (err) {
    const e = actionError(err);
    return { ok: false, message: e.message, param: e.param };
  }
}

/** Puts a paused entry back in service, as `admin model resume` does. */
export async function resumeModelAction(modelId: string): Promise<PauseResult> {
  const { ops } = await requireOps();
  try {
    const resumed = await opsResumeModel(ops, { modelId });
    revalidatePath("/", "layout");
    return {
      ok: true,
      message: resumed.resumed ? `${resumed.model} is back in service.` : `${resumed.model} was not paused.`,
    };
  } catch (err) {
    const e = actionError(err);
    return { ok: false, message: e.message, param: e.param };
  }
}
