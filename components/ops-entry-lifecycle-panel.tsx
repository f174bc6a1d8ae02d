"use client";
// An entry's lifecycle on the entry editor: deprecate with a sunset (and a replacement), or retire
// now, each after a confirmation; what it is now, in words.
import { useState, useTransition } from "react";
import { deprecateEntryAction, retireEntryAction, type SavedEntry } from "@/app/_studio/actions/entries";
import { lifecycleText } from "./ops-entry-lifecycle";
import { BUTTON, INPUT, LABEL } from "./ops-entry-ui";

export function Lifecycle({ stored, onChanged }: { stored: SavedEntry; onChanged: (e: SavedEntry) => void }) {
  const [sunset, setSunset] = useState("");
  const [replacedBy, setReplacedBy] = useState(stored.lifecycle?.replaced_by ?? "");
  const [confirming, setConfirming] = useState<"deprecate" | "retire" | null>(null);
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string; param?: string | null } | null>(null);
  const [pending, startTransition] = useTransition();
  const now = lifecycleText(stored.lifecycle);
  const retired = now?.startsWith("retired") ?? false;

  function act(what: "deprecate" | "retire") {
    setMessage(null);
    startTransition(async () => {
      const result =
        what === "deprecate"
          ? await deprecateEntryAction({ id: stored.id, sunsetAt: sunset, replacedBy })
          : await retireEntryAction({ id: stored.id, replacedBy });
      setConfirming(null);
      if (!result.ok) {
        setMessage({ tone: "error", text: result.message, param: result.param });
        return;
      }
      onChanged(result.entry);
      setMessage({ tone: "ok", text: `Now ${lifecycleText(result.entry.lifecycle) ?? "current"}.` });
    });
  }

  return (
    <section className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm sm:p-5" aria-labelledby="lifecycle">
      <h2 id="lifecycle" className="text-base font-semibold text-zinc-900">
        Lifecycle
      </h2>
      <p className="mt-1 mb-3 text-sm text-zinc-600" data-testid="lifecycle-now">
        {now ? `This entry is ${now}.` : "Current: new runs are taken."}
      </p>
      {retired ? null : (
        <div className="grid gap-4 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
          <label className={LABEL}>
            Sunset date (UTC)
            <input type="date" className={INPUT} value={sunset} onChange={(e) => setSunset(e.target.value)} />
          </label>
          <label className={LABEL}>
            Replacement entry (optional)
            <input
              className={INPUT}
              value={replacedBy}
              placeholder="creator/name"
              onChange={(e) => setReplacedBy(e.target.value)}
            />
          </label>
          <div className="flex flex-wrap gap-2">
            {confirming ? (
              <>
                <button
                  type="button"
                  className={`${BUTTON} bg-red-600 text-white hover:bg-red-700`}
                  disabled={pending}
                  onClick={() => act(confirming)}
                >
                  {confirming === "deprecate" ? "Confirm deprecate" : "Confirm retire"}
                </button>
                <button
                  type="button"
                  className={`${BUTTON} bg-white text-zinc-800 ring-1 ring-zinc-300`}
                  onClick={() => setConfirming(null)}
                >
                  Cancel
                </button>
              </>
            ) : (
              <>
                <button
                  type="button"
                  className={`${BUTTON} bg-white text-amber-800 ring-1 ring-amber-300 hover:bg-amber-50`}
                  disabled={!sunset}
                  onClick={() => setConfirming("deprecate")}
                >
                  Deprecate…
                </button>
                <button
                  type="button"
                  className={`${BUTTON} bg-white text-red-700 ring-1 ring-red-300 hover:bg-red-50`}
                  onClick={() => setConfirming("retire")}
                >
                  Retire now…
                </button>
              </>
            )}
          </div>
        </div>
      )}
      {confirming ? (
        <p className="mt-2 text-sm text-zinc-700">
          {confirming === "deprecate"
            ? `Creators will see it marked deprecated; it stops taking runs on ${sunset}.`
            : "New runs will be refused (410) and it leaves the catalog at once."}
        </p>
      ) : null}
      {message ? (
        <p
          role="status"
          data-testid="lifecycle-message"
          className={message.tone === "ok" ? "mt-2 text-sm text-emerald-700" : "mt-2 text-sm text-red-700"}
        >
          {message.text}
        </p>
      ) : null}
    </section>
  );
}
