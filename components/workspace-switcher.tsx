"use client";
// The top bar's workspace: its name, or with several a menu that moves this session to another
// one. A switch moves every tab of the session (the workspace lives in the session), so the other
// open tabs are told at once and cover their page until reloaded: a page never shows one
// workspace while its buttons act in another.
import { useEffect, useState, useTransition } from "react";
import { switchWorkspaceAction } from "@/app/_studio/actions/workspaces";

const CHANNEL = "atelier-workspace";

export interface SwitcherWorkspace {
  id: string;
  name: string;
  role: string;
}

export function WorkspaceSwitcher({
  current,
  workspaces,
}: {
  current: SwitcherWorkspace;
  workspaces: SwitcherWorkspace[];
}) {
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const [movedTo, setMovedTo] = useState<string | null>(null);

  useEffect(() => {
    if (typeof BroadcastChannel === "undefined") return;
    const channel = new BroadcastChannel(CHANNEL);
    channel.onmessage = (event: MessageEvent<{ id: string; name: string }>) => {
      if (event.data?.id && event.data.id !== current.id) setMovedTo(event.data.name);
    };
    return () => channel.close();
  }, [current.id]);

  const choose = (id: string) => {
    const target = workspaces.find((w) => w.id === id);
    if (!target || id === current.id) return;
    setError(null);
    startTransition(async () => {
      const result = await switchWorkspaceAction(id);
      if (!result.ok) return setError(result.error.message);
      if (typeof BroadcastChannel !== "undefined") {
        const channel = new BroadcastChannel(CHANNEL);
        channel.postMessage({ id: target.id, name: target.name });
        channel.close();
      }
      window.location.assign("/catalog");
    });
  };

  return (
    <div className="flex min-w-0 items-center gap-2 text-sm">
      {workspaces.length > 1 ? (
        <select
          aria-label="Workspace"
          value={current.id}
          disabled={pending}
          onChange={(event) => choose(event.target.value)}
          className="max-w-[16rem] truncate rounded-md border border-zinc-300 bg-white py-1 pr-8 pl-2 font-medium text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-500"
        >
          {workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
      ) : (
        <span className="truncate font-medium text-zinc-900">{current.name}</span>
      )}
      <span className="hidden rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-600 capitalize sm:inline">
        {current.role}
      </span>
      {error && (
        <span role="alert" className="text-xs text-red-700">
          {error}
        </span>
      )}
      {movedTo !== null && (
        <div
          role="alertdialog"
          aria-modal="true"
          aria-labelledby="workspace-moved"
          className="fixed inset-0 z-50 flex items-center justify-center bg-zinc-900/40 p-4"
        >
          <div className="max-w-sm rounded-lg bg-white p-5 text-sm text-zinc-700 shadow-xl">
            <p id="workspace-moved" className="mb-4">
              This tab showed <strong>{current.name}</strong>; you switched to <strong>{movedTo}</strong> in another
              tab. Reload to work in {movedTo}.
            </p>
            <button
              type="button"
              onClick={() => window.location.assign("/catalog")}
              className="rounded-md bg-indigo-600 px-3 py-1.5 font-medium text-white hover:bg-indigo-700"
            >
              Open {movedTo}
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
