"use client";
import { useState } from "react";
import { useForm } from "react-hook-form";
import type { ApiKey, KeyExpiry } from "@/lib/core/api-keys";
import { createKeyAction, revokeKeyAction } from "@/app/(studio)/keys/actions";

const SCOPE_CHOICES = [
  { value: "generations:read", label: "Read models, quotes, runs and files" },
  { value: "generations:write", label: "Start and cancel runs, upload files, manage webhooks" },
  { value: "workspace:read", label: "Read the workspace" },
];

const date = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString("en", { year: "numeric", month: "short", day: "numeric" }) : "—");
const button =
  "rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-60";

interface FormValues {
  name: string;
  expires: KeyExpiry;
  scopes: string[];
}

export function KeysManager({ keys }: { keys: ApiKey[] }) {
  const [open, setOpen] = useState(false);
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const { register, handleSubmit, formState, setError, reset } = useForm<FormValues>({
    defaultValues: { name: "", expires: "365d", scopes: SCOPE_CHOICES.map((s) => s.value) },
  });

  async function onCreate(values: FormValues) {
    const result = await createKeyAction(values);
    if (!result.ok) {
      setError(result.param === "scopes" ? "scopes" : "name", { message: result.message });
      return;
    }
    setCreated(result.value);
    setOpen(false);
    reset();
  }

  async function onRevoke(key: ApiKey) {
    if (!window.confirm(`Revoke "${key.name}" (${key.hint})? Programs using it stop working at once.`)) return;
    await revokeKeyAction(key.id);
  }

  return (
    <div className="space-y-6">
      {created ? (
        <div role="status" className="rounded-lg border border-amber-300 bg-amber-50 p-4">
          <p className="text-sm font-medium text-amber-900">Copy the key “{created.name}” now: it is not shown again.</p>
          <div className="mt-2 flex items-center gap-2">
            <code data-testid="new-key" className="flex-1 overflow-x-auto rounded bg-white px-3 py-2 text-sm text-zinc-900 ring-1 ring-amber-200">
              {created.key}
            </code>
            <button
              type="button"
              className={`${button} bg-zinc-900 text-white hover:bg-zinc-700`}
              onClick={() => void navigator.clipboard?.writeText(created.key).then(() => setCopied(true))}
            >
              {copied ? "Copied" : "Copy"}
            </button>
          </div>
        </div>
      ) : null}

      {open ? (
        <form onSubmit={(e) => void handleSubmit(onCreate)(e)} className="space-y-4 rounded-lg border border-zinc-200 bg-white p-5" aria-label="Create key">
          <label className="block text-sm font-medium text-zinc-700">
            Name
            <input
              {...register("name", { required: "Give the key a name.", maxLength: { value: 100, message: "At most 100 characters." } })}
              className="mt-1 block w-full rounded-md border border-zinc-300 px-3 py-2 text-base focus:outline-2 focus:outline-indigo-500/30"
            />
            {formState.errors.name ? <span className="mt-1 block text-sm text-red-700">{formState.errors.name.message}</span> : null}
          </label>
          <label className="block text-sm font-medium text-zinc-700">
            Expires
            <select {...register("expires")} className="mt-1 block rounded-md border border-zinc-300 bg-white px-3 py-2 text-base">
              <option value="30d">in 30 days</option>
              <option value="90d">in 90 days</option>
              <option value="365d">in 365 days</option>
              <option value="never">never</option>
            </select>
          </label>
          <fieldset>
            <legend className="text-sm font-medium text-zinc-700">Scopes</legend>
            {SCOPE_CHOICES.map((scope) => (
              <label key={scope.value} className="mt-2 flex items-center gap-2 text-sm text-zinc-700">
                <input type="checkbox" value={scope.value} {...register("scopes")} className="size-4 accent-indigo-600" />
                <code className="text-xs">{scope.value}</code> <span className="text-zinc-500">{scope.label}</span>
              </label>
            ))}
            {formState.errors.scopes ? <span className="mt-1 block text-sm text-red-700">{formState.errors.scopes.message}</span> : null}
          </fieldset>
          <div className="flex gap-2">
            <button type="submit" disabled={formState.isSubmitting} className={`${button} bg-indigo-600 text-white hover:bg-indigo-500`}>
              {formState.isSubmitting ? "Creating…" : "Create key"}
            </button>
            <button type="button" onClick={() => setOpen(false)} className={`${button} text-zinc-700 hover:bg-zinc-100`}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <button type="button" onClick={() => setOpen(true)} className={`${button} bg-indigo-600 text-white hover:bg-indigo-500`}>
          New key
        </button>
      )}

      {keys.length === 0 ? (
        <p className="rounded-lg border border-dashed border-zinc-300 bg-white p-8 text-center text-sm text-zinc-500">No keys yet. Make one to call the API.</p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-zinc-200 text-xs text-zinc-500 uppercase">
              <tr>
                {["Name", "Key", "Scopes", "Created", "Expires", "Last used", ""].map((h) => (
                  <th key={h} scope="col" className="px-4 py-2 font-medium">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {keys.map((key) => (
                <tr key={key.id} data-testid="key-row" className={key.revoked_at ? "text-zinc-400" : "text-zinc-800"}>
                  <td className="px-4 py-2 font-medium">{key.name}</td>
                  <td className="px-4 py-2">
                    <code className="text-xs">{key.hint}</code>
                  </td>
                  <td className="px-4 py-2 text-xs">{key.scopes.join(", ")}</td>
                  <td className="px-4 py-2">{date(key.created_at)}</td>
                  <td className="px-4 py-2">{key.expires_at ? date(key.expires_at) : "never"}</td>
                  <td className="px-4 py-2">{date(key.last_used_at)}</td>
                  <td className="px-4 py-2 text-right">
                    {key.revoked_at ? (
                      <span className="text-xs">Revoked</span>
                    ) : (
                      <button type="button" onClick={() => void onRevoke(key)} className={`${button} text-red-700 hover:bg-red-50`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
