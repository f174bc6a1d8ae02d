import Link from "next/link";
import { ApiReference } from "./api-reference";

export const metadata = { title: "API reference · Atelier" };

const link =
  "font-medium text-indigo-600 hover:text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600";

// The public API reference: GET /v1/openapi.json, drawn in the browser (no sign-in, nothing
// fetched from anywhere but this server).
export default function ApiReferencePage() {
  return (
    <main className="py-10 sm:py-16">
      <div className="mx-auto max-w-4xl px-4 sm:px-6">
        <h1 className="mb-2 text-3xl font-semibold tracking-tight">API reference</h1>
        <p className="mb-3 text-zinc-600">
          Every endpoint of <code>/v1</code> with its parameters, answers and examples in curl and the TypeScript SDK,
          and the webhooks Atelier sends. Authenticate with an API key in the <code>x-api-key</code> header.
        </p>
        <p className="mb-8 flex flex-wrap gap-x-5 gap-y-1 text-sm">
          <a href="/v1/openapi.json" className={link}>
            OpenAPI document (JSON)
          </a>
          <Link href="/docs/errors" className={link}>
            Error codes
          </Link>
          <Link href="/keys" className={link}>
            API keys
          </Link>
        </p>
      </div>
      <ApiReference />
    </main>
  );
}
