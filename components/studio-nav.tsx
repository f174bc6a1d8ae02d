"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

// The sidebar links, with the current section marked (aria-current and a tint).
export function StudioNav({ items }: { items: { href: string; label: string }[] }) {
  const pathname = usePathname();
  return (
    <nav
      aria-label="Studio"
      className="flex min-w-0 flex-1 gap-1 overflow-x-auto md:mt-6 md:flex-col md:overflow-visible"
    >
      {items.map((item) => {
        const current =
          pathname === item.href ||
          pathname.startsWith(`${item.href}/`) ||
          (item.href === "/catalog" && pathname.startsWith("/models/"));
        return (
          <Link
            key={item.href}
            href={item.href}
            aria-current={current ? "page" : undefined}
            className={`shrink-0 rounded-md px-2 py-1.5 text-sm font-medium whitespace-nowrap focus-visible:outline-2 focus-visible:outline-indigo-500 ${
              current ? "bg-indigo-50 text-indigo-700" : "text-zinc-700 hover:bg-zinc-100"
            }`}
          >
            {item.label}
          </Link>
        );
      })}
    </nav>
  );
}
