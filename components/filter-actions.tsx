// The end of a plain GET filter form (the Audit and Ops pages): Filter submits it, Clear (shown once
// something is filtered) goes back to the page without its query.
import Link from "next/link";

export function FilterActions({ filtered, clearHref }: { filtered: boolean; clearHref: string }) {
  return (
    <div className="flex items-center gap-3">
      <button
        type="submit"
        className="rounded-md bg-white px-4 py-2 text-sm font-medium text-zinc-800 shadow-sm ring-1 ring-zinc-300 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-500"
      >
        Filter
      </button>
      {filtered ? (
        <Link href={clearHref} className="text-sm font-medium text-indigo-600 hover:text-indigo-700">
          Clear
        </Link>
      ) : null}
    </div>
  );
}
