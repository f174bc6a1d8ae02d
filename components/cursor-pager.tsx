// Previous / Next over a cursor-paged list (runs, files). The API's cursors only go forward, so
// the way back is carried in the URL: `back` lists the cursors of the pages before this one
// ("first" stands for the first page, which has no cursor).
import Link from "next/link";

/** `href(extra)` builds the page's URL with these query parameters set (undefined: removed). */
export type PageHref = (extra: Record<string, string | undefined>) => string;

/** Links to `path` with `params` (the page's filters; empty ones left out), each changed by `extra` (an empty value drops it). */
export function pageHref(path: string, params: Record<string, string | undefined>): PageHref {
  const base = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) base.set(k, v);
  return (extra) => {
    const q = new URLSearchParams(base);
    for (const [k, v] of Object.entries(extra)) {
      if (v) q.set(k, v);
      else q.delete(k);
    }
    const s = q.toString();
    return s ? `${path}?${s}` : path;
  };
}

export interface CursorPages {
  pageNumber: number;
  prevHref: string | null;
  nextHref: string | null;
}

export function cursorPages(input: {
  back: string[];
  cursor: string | undefined;
  nextCursor: string | null | undefined;
  href: PageHref;
}): CursorPages {
  const { back, cursor, nextCursor, href } = input;
  const previous = back[back.length - 1];
  return {
    pageNumber: back.length + 1,
    nextHref: nextCursor ? href({ cursor: nextCursor, back: [...back, cursor ?? "first"].join(",") }) : null,
    prevHref: previous
      ? href({ cursor: previous === "first" ? undefined : previous, back: back.slice(0, -1).join(",") || undefined })
      : null,
  };
}

const ACTIVE = "rounded-md border border-zinc-200 bg-white px-3 py-1.5 font-medium text-zinc-700 hover:bg-zinc-50";
const INACTIVE = "rounded-md border border-zinc-100 px-3 py-1.5 text-zinc-300";

function PageLink({ href, children }: { href: string | null; children: string }) {
  return href ? (
    <Link href={href} className={ACTIVE}>
      {children}
    </Link>
  ) : (
    <span aria-disabled="true" className={INACTIVE}>
      {children}
    </span>
  );
}

export function CursorPager({
  pages,
  count,
  noun,
}: {
  pages: CursorPages;
  count: number;
  noun: [singular: string, plural: string];
}) {
  return (
    <nav aria-label="Pages" className="mt-4 flex items-center justify-between text-sm">
      <span className="text-zinc-500" data-testid="page-number">
        Page {pages.pageNumber} · {count} {count === 1 ? noun[0] : noun[1]}
      </span>
      <div className="flex gap-2">
        <PageLink href={pages.prevHref}>← Previous</PageLink>
        <PageLink href={pages.nextHref}>Next →</PageLink>
      </div>
    </nav>
  );
}
