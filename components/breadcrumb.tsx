import Link from "next/link";
import type { ReactNode } from "react";

// The trail above a page's title: the page it belongs to, then where the reader is.
export function Breadcrumb({ parent, children }: { parent: { href: string; label: string }; children: ReactNode }) {
  return (
    <nav aria-label="Breadcrumb" className="mb-3 text-sm text-zinc-500">
      <Link href={parent.href} className="hover:text-zinc-800">
        {parent.label}
      </Link>
      <span className="mx-1.5 text-zinc-300">/</span>
      {children}
    </nav>
  );
}
