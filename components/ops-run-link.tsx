import Link from "next/link";

/** A run ID in the ops lists: it opens the operator's read-only run page, whatever its workspace. */
export function OpsRunLink({ id }: { id: string }) {
  return (
    <Link
      href={`/ops/runs/${id}`}
      className="font-mono text-xs text-indigo-600 hover:text-indigo-700 focus-visible:outline-2 focus-visible:outline-indigo-500"
    >
      {id}
    </Link>
  );
}
