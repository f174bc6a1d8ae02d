"use client";
// Ops: a new workspace with its first owner's invitation. The link is shown once.
import { useActionState } from "react";
import { createWorkspaceAction, type NewWorkspaceResult } from "@/app/_studio/actions/ops";
import { field, submit } from "./ops-credit-form";

export function OpsWorkspaceForm() {
  const [result, action, pending] = useActionState<NewWorkspaceResult | null, FormData>(createWorkspaceAction, null);
  return (
    <form action={action} aria-label="New workspace" className="grid gap-4 sm:grid-cols-[2fr_2fr_auto] sm:items-end">
      <label className="block text-sm font-medium text-zinc-700">
        Workspace name
        <input name="name" maxLength={100} required className={field} />
      </label>
      <label className="block text-sm font-medium text-zinc-700">
        First owner's email
        <input name="owner" type="email" required className={field} />
      </label>
      <button type="submit" disabled={pending} className={submit}>
        {pending ? "Making…" : "Make workspace"}
      </button>
      {result ? (
        <div
          role={result.ok ? "status" : "alert"}
          className={`text-sm sm:col-span-3 ${result.ok ? "text-emerald-700" : "text-red-700"}`}
        >
          {result.message}
          {result.ok ? (
            <code data-testid="owner-invite-link" className="mt-1 block font-mono text-xs break-all text-zinc-900">
              {result.link}
            </code>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}
