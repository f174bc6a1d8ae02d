"use client";
// Share a run: make a public link (expiry, whether the prompt shows), see it once with Copy and
// Open, and the run's links with who made them, when they expire, how often they were opened,
// each revoked in one click. Only a succeeded run can be shared; the card says why otherwise.
import { useId, useState } from "react";
import type { Generation } from "@/lib/core/runs/generation-view";
import type { CreatedShareLink, ShareExpiry, ShareLink } from "@/lib/core/shares/share-links";
import { createShareLinkAction, revokeShareLinkAction } from "@/app/_studio/actions/shares";
import { useLiveRun } from "./use-live-runs";
import { danger, primary, secondary, When } from "./webhooks-ui";

const EXPIRY_CHOICES: { value: ShareExpiry; label: string }[] = [
  { value: "1d", label: "1 day" },
  { value: "7d", label: "7 days" },
  { value: "30d", label: "30 days" },
  { value: "never", label: "Never" },
];

const NOT_YET: Record<string, string> = {
  queued: "This run has not started yet. Only a succeeded run can be shared: you can share it once it succeeds.",
  running: "This run is still running. Only a succeeded run can be shared: you can share it once it succeeds.",
  failed: "This run failed, so it has no outputs to show. Only a succeeded run can be shared.",
  canceled: "This run was canceled, so it has no outputs to show. Only a succeeded run can be shared.",
};

const STATE_TONE: Record<ShareLink["state"], string> = {
  active: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  expired: "bg-zinc-100 text-zinc-600 ring-zinc-200",
  revoked: "bg-zinc-100 text-zinc-600 ring-zinc-200",
};
const STATE_LABEL: Record<ShareLink["state"], string> = { active: "Active", expired: "Expired", revoked: "Revoked" };

function NewLink({ created, onDone }: { created: CreatedShareLink & { url: string }; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div data-testid="share-new" className="space-y-2 rounded-lg border border-indigo-200 bg-indigo-50 p-3">
      <p className="text-sm text-zinc-800">
        <strong className="font-semibold">Your link is ready.</strong> Copy it now: it is shown only this once (Atelier
        keeps a hash of it, not the link).
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <input
          readOnly
          aria-label="Share link"
          data-testid="share-url"
          value={created.url}
          onFocus={(e) => e.currentTarget.select()}
          className="min-w-0 flex-1 basis-64 rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 font-mono text-xs text-zinc-900"
        />
        <button
          type="button"
          className={primary}
          onClick={() => void navigator.clipboard?.writeText(created.url).then(() => setCopied(true))}
        >
          {copied ? "Copied" : "Copy link"}
        </button>
        <a href={created.path} target="_blank" rel="noopener noreferrer" className={secondary}>
          Open
        </a>
        <button type="button" className={secondary} onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

function LinkRow({ link, onRevoke, busy }: { link: ShareLink; onRevoke: () => void; busy: boolean }) {
  const live = link.state === "active";
  return (
    <li
      data-testid="share-link"
      data-share-id={link.id}
      data-state={link.state}
      className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2.5"
    >
      <div className="min-w-0 flex-1 basis-56">
        <div className="flex flex-wrap items-center gap-2">
          <code className={`font-mono text-xs ${live ? "text-zinc-900" : "text-zinc-500 line-through"}`}>
            {link.hint}
          </code>
          <span
            className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ${STATE_TONE[link.state]}`}
          >
            {STATE_LABEL[link.state]}
          </span>
          <span className="text-xs text-zinc-500">{link.show_input ? "Prompt shown" : "Outputs only"}</span>
        </div>
        <div className="mt-0.5 text-xs text-zinc-500">
          <When iso={link.created_at} /> by <span className="text-zinc-700">{link.created_by}</span>
          {" · "}
          {link.state === "revoked" && link.revoked_at ? (
            <>
              revoked <When iso={link.revoked_at} />
            </>
          ) : link.expires_at ? (
            <>
              {link.state === "expired" ? "expired" : "expires"} <When iso={link.expires_at} />
            </>
          ) : (
            "never expires"
          )}
          {" · "}
          <span data-testid="share-opens">
            {link.open_count === 1
              ? "opened once"
              : link.open_count === 0
                ? "not opened yet"
                : `opened ${link.open_count} times`}
          </span>
        </div>
      </div>
      {live ? (
        <button
          type="button"
          onClick={onRevoke}
          disabled={busy}
          aria-label={`Revoke link ${link.hint}`}
          className={danger}
        >
          {busy ? "Revoking…" : "Revoke"}
        </button>
      ) : null}
    </li>
  );
}

export function SharePanelView({ initial, links: initialLinks }: { initial: Generation; links: ShareLink[] }) {
  const g = useLiveRun(initial).generation;
  const [links, setLinks] = useState(initialLinks);
  const [expires, setExpires] = useState<ShareExpiry>("7d");
  const [showInput, setShowInput] = useState(false);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [created, setCreated] = useState<(CreatedShareLink & { url: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const headingId = useId();
  const shareable = g.status === "succeeded";

  async function create() {
    setCreating(true);
    setError(null);
    setCreated(null);
    const answer = await createShareLinkAction(g.id, { expires, showInput });
    setCreating(false);
    if (!answer.ok) return setError(answer.error.message);
    const { token: _token, path: _path, ...link } = answer.value;
    setCreated({ ...answer.value, url: `${window.location.origin}${answer.value.path}` });
    setLinks((old) => [link, ...old]);
  }

  async function revoke(id: string) {
    setRevoking(id);
    setError(null);
    const answer = await revokeShareLinkAction(id);
    setRevoking(null);
    if (!answer.ok) return setError(answer.error.message);
    setLinks((old) => old.map((l) => (l.id === id ? answer.value : l)));
    if (created?.id === id) setCreated(null);
  }

  return (
    <section
      aria-labelledby={headingId}
      data-testid="share-panel"
      className="mt-6 rounded-lg border border-zinc-200 bg-white p-5"
    >
      <h2 id={headingId} className="text-sm font-semibold text-zinc-900">
        Share
      </h2>
      <p className="mt-1 text-sm text-zinc-500">
        A public link to this run&apos;s outputs. Anyone with the link sees them without signing in, and nothing else of
        your workspace.
      </p>

      {!shareable ? (
        <p
          data-testid="share-unavailable"
          className="mt-4 rounded-md bg-zinc-50 px-3 py-2 text-sm text-zinc-600 ring-1 ring-zinc-200"
        >
          {NOT_YET[g.status] ?? NOT_YET.running}
        </p>
      ) : (
        <form
          className="mt-4 flex flex-wrap items-end gap-x-5 gap-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <fieldset>
            <legend className="text-xs font-medium text-zinc-600">Expires after</legend>
            <div className="mt-1 inline-flex rounded-lg border border-zinc-300 bg-zinc-50 p-0.5">
              {EXPIRY_CHOICES.map((choice) => (
                <label
                  key={choice.value}
                  className="relative cursor-pointer rounded-md px-2.5 py-1 text-center text-sm font-medium whitespace-nowrap text-zinc-600 hover:text-zinc-900 has-checked:bg-white has-checked:text-zinc-900 has-checked:shadow-sm has-checked:ring-1 has-checked:ring-zinc-200 has-focus-visible:outline-2 has-focus-visible:outline-indigo-500"
                >
                  <input
                    type="radio"
                    name="share-expires"
                    value={choice.value}
                    checked={expires === choice.value}
                    onChange={() => setExpires(choice.value)}
                    className="sr-only"
                  />
                  {choice.label}
                </label>
              ))}
            </div>
          </fieldset>
          <label className="flex cursor-pointer items-center gap-2 pb-1.5 text-sm text-zinc-800">
            <input
              type="checkbox"
              checked={showInput}
              onChange={(e) => setShowInput(e.target.checked)}
              className="size-4 accent-indigo-600"
            />
            Show the prompt and settings
          </label>
          <button type="submit" disabled={creating} className={`${primary} ml-auto`}>
            {creating ? "Creating…" : "Create link"}
          </button>
        </form>
      )}

      {error ? (
        <p
          role="alert"
          data-testid="share-error"
          className="mt-3 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200"
        >
          {error}
        </p>
      ) : null}
      {created ? (
        <div className="mt-4">
          <NewLink created={created} onDone={() => setCreated(null)} />
        </div>
      ) : null}

      {links.length ? (
        <ul aria-label="Share links of this run" className="mt-4 divide-y divide-zinc-100 border-t border-zinc-100">
          {links.map((link) => (
            <LinkRow key={link.id} link={link} busy={revoking === link.id} onRevoke={() => void revoke(link.id)} />
          ))}
        </ul>
      ) : shareable ? (
        <p className="mt-4 border-t border-zinc-100 pt-3 text-xs text-zinc-500">
          No links yet. Links you create are listed here, and can be revoked at any time.
        </p>
      ) : null}
    </section>
  );
}
