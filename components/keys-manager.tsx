"use client";
// API keys: the table, "Create key" in a dialog (react-hook-form) that shows the new key once, and
// revoke behind a confirmation.
import { useId, useState, type ReactNode } from "react";
import Link from "next/link";
import { useForm } from "react-hook-form";
import type { ApiKey, KeyExpiry } from "@/lib/core/keys/api-keys";
import { createKeyAction, revokeKeyAction } from "@/app/_studio/actions/keys";
import { Modal } from "./modal";
import { ConfirmDialog, danger, primary, secondary } from "./webhooks-ui";

const SCOPE_CHOICES = [
  { value: "generations:read", label: "Read models, quotes, runs and files" },
  { value: "generations:write", label: "Start and cancel runs, upload files, manage webhooks" },
  { value: "workspace:read", label: "Read the workspace" },
];

const EXPIRY_CHOICES: { value: KeyExpiry; label: string }[] = [
  { value: "30d", label: "30 days" },
  { value: "90d", label: "90 days" },
  { value: "365d", label: "365 days" },
  { value: "never", label: "Never" },
];

const date = (iso: string | null) =>
  iso ? new Date(iso).toLocaleDateString("en", { year: "numeric", month: "short", day: "numeric" }) : "—";

interface FormValues {
  name: string;
  expires: KeyExpiry;
  scopes: string[];
}

function CreateKeyForm({
  onCreated,
  onCancel,
}: {
  onCreated: (key: { key: string; name: string }) => void;
  onCancel: () => void;
}) {
  const { register, handleSubmit, formState, setError } = useForm<FormValues>({
    defaultValues: { name: "", expires: "365d", scopes: SCOPE_CHOICES.map((s) => s.value) },
  });
  const nameId = useId();
  async function onSubmit(values: FormValues) {
    const result = await createKeyAction(values);
    if (result.ok) onCreated(result.value);
    else setError(result.param === "scopes" ? "scopes" : "name", { message: result.message });
  }
  const { errors } = formState;
  return (
    <form onSubmit={(e) => void handleSubmit(onSubmit)(e)} className="mt-4 space-y-5" noValidate>
      <div>
        <label htmlFor={nameId} className="block text-sm font-medium text-zinc-800">
          Name
        </label>
        <input
          id={nameId}
          autoFocus
          placeholder="deploy bot"
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? `${nameId}-error` : `${nameId}-help`}
          {...register("name", {
            validate: (v) => v.trim() !== "" || "Give the key a name.",
            maxLength: { value: 100, message: "At most 100 characters." },
          })}
          className="mt-1.5 block w-full rounded-lg border border-zinc-300 px-3 py-2 text-base text-zinc-900 shadow-xs placeholder:text-zinc-400 focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500/30"
        />
        {errors.name ? (
          <p id={`${nameId}-error`} className="mt-1 text-sm text-red-700">
            {errors.name.message}
          </p>
        ) : (
          <p id={`${nameId}-help`} className="mt-1 text-xs text-zinc-500">
            Say where it is used, so you know what stops working when you revoke it.
          </p>
        )}
      </div>
      <fieldset>
        <legend className="text-sm font-medium text-zinc-800">Expires</legend>
        <div className="mt-1.5 inline-flex w-full rounded-lg border border-zinc-300 bg-zinc-50 p-0.5">
          {EXPIRY_CHOICES.map((choice) => (
            <label
              key={choice.value}
              className="relative flex-1 cursor-pointer rounded-md px-3 py-1.5 text-center text-sm font-medium text-zinc-600 hover:text-zinc-900 has-checked:bg-white has-checked:text-zinc-900 has-checked:shadow-sm has-checked:ring-1 has-checked:ring-zinc-200 has-focus-visible:outline-2 has-focus-visible:outline-indigo-500"
            >
              <input type="radio" value={choice.value} {...register("expires")} className="sr-only" />
              {choice.label}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend className="text-sm font-medium text-zinc-800">Scopes</legend>
        <div className="mt-1.5 divide-y divide-zinc-100 rounded-lg border border-zinc-200">
          {SCOPE_CHOICES.map((scope) => (
            <label key={scope.value} className="flex cursor-pointer items-start gap-3 px-3 py-2.5 hover:bg-zinc-50">
              <input
                type="checkbox"
                value={scope.value}
                {...register("scopes", { validate: (v) => v.length > 0 || "Pick at least one scope." })}
                className="mt-0.5 size-4 accent-indigo-600"
              />
              <span className="text-sm">
                <code className="font-mono text-xs font-medium text-zinc-900">{scope.value}</code>
                <span className="block text-zinc-500">{scope.label}</span>
              </span>
            </label>
          ))}
        </div>
        {errors.scopes ? <p className="mt-1 text-sm text-red-700">{errors.scopes.message}</p> : null}
      </fieldset>
      <div className="flex justify-end gap-2 border-t border-zinc-100 pt-4">
        <button type="button" onClick={onCancel} className={secondary}>
          Cancel
        </button>
        <button type="submit" disabled={formState.isSubmitting} className={primary}>
          {formState.isSubmitting ? "Creating…" : "Create key"}
        </button>
      </div>
    </form>
  );
}

function NewKey({ created, onDone }: { created: { key: string; name: string }; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="mt-3 space-y-4">
      <p role="alert" className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2.5 text-sm text-amber-900">
        <strong className="font-semibold">Copy the key “{created.name}” now.</strong> It is shown only this once:
        Atelier keeps a hash, not the key. If you lose it, revoke it and create another.
      </p>
      <div className="flex items-center gap-2">
        <code
          data-testid="new-key"
          className="min-w-0 flex-1 overflow-x-auto rounded-md bg-zinc-100 px-3 py-2 font-mono text-sm whitespace-nowrap text-zinc-900"
        >
          {created.key}
        </code>
        <button
          type="button"
          className={primary}
          onClick={() => void navigator.clipboard?.writeText(created.key).then(() => setCopied(true))}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <p className="text-sm text-zinc-600">
        Send it in the <code className="font-mono text-xs text-zinc-800">x-api-key</code> header. Every endpoint, with
        curl and SDK examples: {/* A new tab: leaving this dialog would lose the key before it is copied. */}
        <a
          href="/docs/api"
          target="_blank"
          rel="noopener"
          className="font-medium text-indigo-600 hover:text-indigo-700 hover:underline"
        >
          API reference
        </a>
      </p>
      <div className="flex justify-end border-t border-zinc-100 pt-4">
        <button type="button" onClick={onDone} className={secondary}>
          Done
        </button>
      </div>
    </div>
  );
}

/** `intro` (the page's heading) sits beside the Create key button. */
/** What the signed-in member may do here: make keys (or why not), and revoke whose. */
export interface KeyRights {
  /** null: may make keys; else the sentence saying why not. */
  makeRefusal: string | null;
  /** Revokes every key (admin, owner), or only the keys this user made. */
  revokeAny: boolean;
  userId: string;
}

export function KeysManager({ keys, intro, rights }: { keys: ApiKey[]; intro?: ReactNode; rights: KeyRights }) {
  const [dialog, setDialog] = useState<"closed" | "form" | "created">("closed");
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const now = Date.now();

  function close() {
    // The key is gone from the page once its dialog closes: it is shown once.
    setDialog("closed");
    setCreated(null);
  }

  async function revoke() {
    if (!revoking) return;
    setRevokeBusy(true);
    const result = await revokeKeyAction(revoking.id);
    setRevokeBusy(false);
    if (result.ok) setRevoking(null);
    else setRevokeError(result.message);
  }

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        {intro}
        <div className="flex items-center gap-2">
          <Link href="/docs/api" className={secondary}>
            API reference
          </Link>
          {rights.makeRefusal === null ? (
            <button type="button" onClick={() => setDialog("form")} className={primary}>
              Create key
            </button>
          ) : null}
        </div>
      </div>

      {rights.makeRefusal !== null ? (
        <p className="rounded-md border border-zinc-200 bg-white px-4 py-3 text-sm text-zinc-600">
          {rights.makeRefusal}
        </p>
      ) : null}

      <Modal
        open={dialog !== "closed"}
        title={dialog === "created" ? "Your new API key" : "Create key"}
        onClose={close}
      >
        {dialog === "created" && created ? (
          <NewKey created={created} onDone={close} />
        ) : (
          <CreateKeyForm
            onCancel={close}
            onCreated={(key) => {
              setCreated(key);
              setDialog("created");
            }}
          />
        )}
      </Modal>

      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke “${revoking?.name ?? ""}”?`}
        confirmLabel="Revoke key"
        tone="danger"
        busy={revokeBusy}
        error={revokeError}
        onConfirm={() => void revoke()}
        onCancel={() => {
          setRevoking(null);
          setRevokeError(null);
        }}
      >
        <p>
          Programs using <code className="font-mono text-xs text-zinc-800">{revoking?.hint}</code> get 401 from their
          next request on. This cannot be undone.
        </p>
      </ConfirmDialog>

      {keys.length === 0 ? (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-10 text-center text-sm text-zinc-500">
          <p className="font-medium text-zinc-700">No keys yet.</p>
          <p className="mt-1">Create one to call the API as this workspace: it goes in the x-api-key header.</p>
        </div>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-zinc-200 bg-zinc-50 text-xs font-medium text-zinc-500">
              <tr>
                {["Name", "Key", "Scopes", "Created", "Expires", "Last used"].map((h) => (
                  <th key={h} scope="col" className="px-4 py-2.5">
                    {h}
                  </th>
                ))}
                <th scope="col" className="px-4 py-2.5">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {keys.map((key) => {
                const expired = !key.revoked_at && key.expires_at !== null && Date.parse(key.expires_at) <= now;
                const inactive = key.revoked_at !== null || expired;
                return (
                  <tr key={key.id} data-testid="key-row" className={inactive ? "text-zinc-400" : "text-zinc-800"}>
                    <td className="px-4 py-2.5 font-medium">{key.name}</td>
                    <td className="px-4 py-2.5">
                      <code className="font-mono text-xs">{key.hint}</code>
                    </td>
                    <td className="px-4 py-2.5">
                      <div className="flex flex-wrap gap-1">
                        {key.scopes.map((s) => (
                          <span
                            key={s}
                            className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-[11px] text-zinc-600"
                          >
                            {s}
                          </span>
                        ))}
                      </div>
                    </td>
                    <td className="px-4 py-2.5 whitespace-nowrap" title={key.created_at} data-testid="key-created">
                      {date(key.created_at)}
                    </td>
                    <td
                      className="px-4 py-2.5 whitespace-nowrap"
                      title={key.expires_at ?? undefined}
                      data-testid="key-expires"
                    >
                      {key.expires_at ? date(key.expires_at) : "Never"}
                    </td>
                    <td className="px-4 py-2.5 whitespace-nowrap">
                      {key.last_used_at ? date(key.last_used_at) : "Never"}
                    </td>
                    <td className="px-4 py-2.5 text-right">
                      {key.revoked_at ? (
                        <span
                          className="rounded-full bg-zinc-100 px-2 py-0.5 text-xs font-medium text-zinc-500"
                          title={key.revoked_at}
                        >
                          Revoked
                        </span>
                      ) : (
                        <div className="flex items-center justify-end gap-2">
                          {expired ? (
                            <span className="rounded-full bg-zinc-100 px-2 py-0.5 text-xs font-medium text-zinc-500">
                              Expired
                            </span>
                          ) : null}
                          {rights.revokeAny || key.created_by === rights.userId ? (
                            <button
                              type="button"
                              aria-label={`Revoke ${key.name}`}
                              onClick={() => {
                                setRevokeError(null);
                                setRevoking(key);
                              }}
                              className={danger}
                            >
                              Revoke
                            </button>
                          ) : null}
                        </div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
