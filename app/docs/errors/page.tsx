import Link from "next/link";
import { ERROR_CODES } from "@/lib/primitives/error-codes";

export const metadata = { title: "Error codes · Atelier" };

// Where every error's `doc_url` points: the code table itself, rendered from its one home.
export default function ErrorCodesPage() {
  return (
    <main className="mx-auto max-w-4xl px-6 py-16">
      <h1 className="mb-2 text-3xl font-semibold tracking-tight">Error codes</h1>
      <p className="mb-3 text-zinc-600">
        Every error answer has the shape <code>{"{ error: { type, code, message, param, doc_url, request_id } }"}</code>
        . Branch on <code>type</code> and <code>code</code>, never on <code>message</code>.
      </p>
      <p className="mb-8 text-sm text-zinc-600">
        Which endpoint answers which code:{" "}
        <Link
          href="/docs/api"
          className="font-medium text-indigo-600 hover:text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          Full API reference
        </Link>
      </p>
      <dl className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 bg-white">
        {Object.entries(ERROR_CODES).map(([code, entry]) => (
          <div key={code} id={code} className="grid gap-1 px-5 py-4 sm:grid-cols-[16rem_1fr]">
            <dt className="font-mono text-sm">
              <span className="font-semibold">{code}</span>
              <span className="ml-2 text-zinc-500">{entry.status}</span>
              <div className="text-xs text-zinc-500">{entry.type}</div>
            </dt>
            <dd className="text-sm text-zinc-700">
              {entry.condition}
              <div className="mt-1 text-xs text-zinc-500">Retry: {entry.retry}</div>
            </dd>
          </div>
        ))}
      </dl>
    </main>
  );
}
