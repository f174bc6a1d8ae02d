// The loading state of every studio page (its loading.tsx): grey shapes in the page's own layout,
// so the content lands where the eye already is. One status region per page names what is
// loading for screen readers; the shapes themselves are hidden from them.
import type { ReactNode } from "react";

export function PageSkeleton({
  label,
  className = "max-w-6xl",
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div role="status" aria-busy="true" aria-label={label} className={`mx-auto motion-safe:animate-pulse ${className}`}>
      <span className="sr-only">{label}…</span>
      <div aria-hidden>{children}</div>
    </div>
  );
}

/** One grey shape; size and spacing come from the caller. */
export function Bone({ className = "" }: { className?: string }) {
  return <div className={`rounded bg-zinc-200 ${className}`} />;
}

/** A bordered card, as the studio's sections are. */
export function CardBone({ className = "", children }: { className?: string; children?: ReactNode }) {
  return <div className={`rounded-lg border border-zinc-200 bg-white ${className}`}>{children}</div>;
}

/** The title and one-line description every page opens with. */
export function HeadingBone({ title = "w-40" }: { title?: string }) {
  return (
    <div className="mb-6">
      <Bone className={`h-7 ${title}`} />
      <Bone className="mt-2 h-4 w-full max-w-md bg-zinc-100" />
    </div>
  );
}

/** A table in a card: a header strip and `rows` rows. */
export function TableBone({ rows = 6, className = "" }: { rows?: number; className?: string }) {
  return (
    <CardBone className={`overflow-hidden ${className}`}>
      <div className="h-9 border-b border-zinc-200 bg-zinc-50" />
      <div className="divide-y divide-zinc-100">
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className="flex items-center gap-4 px-5 py-3">
            <Bone className="h-4 w-40" />
            <Bone className="h-4 w-24 bg-zinc-100" />
            <Bone className="ml-auto h-4 w-16 bg-zinc-100" />
          </div>
        ))}
      </div>
    </CardBone>
  );
}
