// The status pill: colour plus the word, never colour alone.
const TONES: Record<string, string> = {
  queued: "bg-zinc-100 text-zinc-700 ring-zinc-300",
  running: "bg-blue-50 text-blue-700 ring-blue-200",
  succeeded: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  failed: "bg-red-50 text-red-700 ring-red-200",
  canceled: "bg-zinc-100 text-zinc-500 ring-zinc-200",
};
const DOTS: Record<string, string> = {
  queued: "bg-zinc-400",
  running: "bg-blue-500 motion-safe:animate-pulse",
  succeeded: "bg-emerald-500",
  failed: "bg-red-500",
  canceled: "bg-zinc-400",
};

export function RunStatusPill({ status, extra }: { status: string; extra?: string }) {
  return (
    <span
      data-testid="status-pill"
      data-status={status}
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium capitalize ring-1 ring-inset ${TONES[status] ?? TONES.queued}`}
    >
      <span aria-hidden className={`h-1.5 w-1.5 rounded-full ${DOTS[status] ?? DOTS.queued}`} />
      {status}
      {extra ? <span className="font-normal tabular-nums opacity-80">{extra}</span> : null}
    </span>
  );
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

export function relativeTime(iso: string, now = Date.now()): string {
  const diff = Math.round((now - Date.parse(iso)) / 1000);
  if (diff < 10) return "just now";
  if (diff < 60) return `${diff} s ago`;
  if (diff < 3600) return `${Math.floor(diff / 60)} min ago`;
  if (diff < 86400) return `${Math.floor(diff / 3600)} h ago`;
  return `${Math.floor(diff / 86400)} d ago`;
}

/** "In queue: #3" while queued; "At the provider: #2 in its queue" while a provider queues it (fal). */
export function queuePlace(g: { status: string; queue_position: number | null }): string {
  if (g.queue_position === null) return "";
  return g.status === "queued"
    ? `In queue: #${g.queue_position}`
    : `At the provider: #${g.queue_position} in its queue`;
}
