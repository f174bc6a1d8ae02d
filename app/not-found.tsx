import Link from "next/link";

export const metadata = { title: "Not found · Atelier" };

// Unknown pages, runs of other workspaces, and the ops page for anyone without the ops role.
export default function NotFound() {
  return (
    <main className="flex min-h-[60vh] flex-col items-center justify-center px-6 py-16 text-center">
      <p className="text-sm font-semibold text-indigo-600">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-zinc-900">This page does not exist</h1>
      <p className="mt-2 max-w-md text-sm text-zinc-500">
        The address may be mistyped, or what it pointed to belongs to another workspace.
      </p>
      <Link
        href="/catalog"
        className="mt-6 rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      >
        Back to the catalog
      </Link>
    </main>
  );
}
