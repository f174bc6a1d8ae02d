"use client";
// Small pieces shared by the webhooks page and the run page's deliveries: buttons, times, the
// delivery status pill, a confirmation dialog and a refresh while deliveries are about to happen.
import { useEffect, useId, useState, type ReactNode } from "react";
import { useRouter } from "next/navigation";
import { Modal } from "./modal";
import { relativeTime } from "./run-status";

export const button =
  "inline-flex items-center justify-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-60";
export const primary = `${button} bg-indigo-600 text-white shadow-sm hover:bg-indigo-500`;
export const secondary = `${button} border border-zinc-300 bg-white text-zinc-700 hover:bg-zinc-50`;
export const quiet = `${button} text-zinc-700 hover:bg-zinc-100`;
export const danger = `${button} text-red-700 hover:bg-red-50`;
export const card = "rounded-lg border border-zinc-200 bg-white";

function span(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** A time as "3 min ago" (or "in 5 min"), with the exact time on hover and for machines. */
export function When({ iso, className }: { iso: string; className?: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(t);
  }, []);
  const ms = Date.parse(iso) - now;
  const text = ms > 1_000 ? `in ${span(ms)}` : relativeTime(iso, now);
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()} className={className} suppressHydrationWarning>
      {text}
    </time>
  );
}

const PENDING = {
  pill: "bg-blue-50 text-blue-700 ring-blue-200",
  dot: "bg-blue-500 motion-safe:animate-pulse",
  label: "Pending",
};
const DELIVERY_TONES: Record<string, { pill: string; dot: string; label: string }> = {
  pending: PENDING,
  succeeded: { pill: "bg-emerald-50 text-emerald-700 ring-emerald-200", dot: "bg-emerald-500", label: "Delivered" },
  failed: { pill: "bg-red-50 text-red-700 ring-red-200", dot: "bg-red-500", label: "Failed" },
};

/** The delivery status: colour plus the word, never colour alone. */
export function DeliveryStatusPill({ status }: { status: string }) {
  const tone = DELIVERY_TONES[status] ?? PENDING;
  return (
    <span
      data-testid="delivery-status"
      data-status={status}
      className={`inline-flex shrink-0 items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tone.pill}`}
    >
      <span aria-hidden className={`h-1.5 w-1.5 rounded-full ${tone.dot}`} />
      {tone.label}
    </span>
  );
}

/** An HTTP status code as a chip: 2xx green, anything else red, no answer grey. */
export function HttpStatus({ status }: { status: number | null }) {
  if (status === null)
    return <span className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-zinc-600">no answer</span>;
  const ok = status >= 200 && status < 300;
  return (
    <span
      className={`rounded px-1.5 py-0.5 font-mono ${ok ? "bg-emerald-50 text-emerald-700" : "bg-red-50 text-red-700"}`}
      data-testid="http-status"
    >
      HTTP {status}
    </span>
  );
}

/** A modal confirmation on the native <dialog> (focus kept inside, Escape cancels). */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  tone?: "danger" | "primary";
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const bodyId = useId();
  const { onCancel } = props;
  return (
    <Modal open={props.open} title={props.title} onClose={onCancel} width="max-w-md" describedBy={bodyId}>
      <div id={bodyId} className="mt-2 space-y-2 text-sm text-zinc-600">
        {props.children}
      </div>
      {props.error ? (
        <p role="alert" className="mt-3 text-sm text-red-700">
          {props.error}
        </p>
      ) : null}
      <div className="mt-5 flex flex-wrap justify-end gap-2">
        <button type="button" onClick={onCancel} className={secondary}>
          Cancel
        </button>
        <button
          type="button"
          autoFocus
          disabled={props.busy}
          onClick={props.onConfirm}
          className={props.tone === "danger" ? `${button} bg-red-600 text-white shadow-sm hover:bg-red-500` : primary}
        >
          {props.busy ? "Working…" : props.confirmLabel}
        </button>
      </div>
    </Modal>
  );
}

/** Refreshes the server-rendered page every few seconds while `active` (deliveries about to happen). */
export function AutoRefresh({ active, everyMs = 3000 }: { active: boolean; everyMs?: number }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => router.refresh(), everyMs);
    return () => clearInterval(t);
  }, [active, everyMs, router]);
  return null;
}
