"use client";
// Failures outside the studio frame (sign-in, the public catalog, the root layout itself). It
// replaces the root layout, so it brings its own <html>, <body> and styles.
import "./globals.css";
import { ErrorState } from "@/components/error-state";

export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <head>
        <title>Error · Atelier</title>
      </head>
      <body className="min-h-screen bg-zinc-50 px-4 py-12 font-sans text-zinc-900 antialiased">
        <ErrorState error={error} reset={reset} />
      </body>
    </html>
  );
}
