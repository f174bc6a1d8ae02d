// The frame of the pages a signed-out visitor sees (sign-in, an invitation): the name, and one card.
import type { ReactNode } from "react";

export function BrandCard({ children, after }: { children: ReactNode; after?: ReactNode }) {
  return (
    <main className="flex min-h-screen items-center justify-center bg-zinc-50 px-4">
      <div className="w-full max-w-sm">
        <p className="mb-6 text-center text-lg font-semibold tracking-tight text-zinc-900">
          Atelier<span className="text-indigo-600">.</span>
        </p>
        <div className="rounded-lg border border-zinc-200 bg-white p-8 shadow-sm">{children}</div>
        {after}
      </div>
    </main>
  );
}
