import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { EARLY_INPUT_SCRIPT } from "@/components/early-input";
import { scriptNonceOf } from "@/lib/primitives/http/security-headers";
import "./globals.css";

export const metadata: Metadata = {
  title: "Atelier",
  description: "Run image, video, audio and 3D models through one API and studio.",
};

// Reading the request makes every page render per request: each answer's inline scripts carry
// its own nonce (server.ts), which a page prerendered at build time could not.
export default async function RootLayout({ children }: { children: ReactNode }) {
  const nonce = scriptNonceOf((await headers()).get("content-security-policy"));
  return (
    <html lang="en">
      <head>
        {/* Before the page's scripts: what is typed until hydration is kept (components/early-input.ts). */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: EARLY_INPUT_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-zinc-50 font-sans text-zinc-900 antialiased">{children}</body>
    </html>
  );
}
