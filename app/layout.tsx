import type { Metadata } from "next";
import type { ReactNode } from "react";
import { EARLY_INPUT_SCRIPT } from "@/components/early-input";
import "./globals.css";

export const metadata: Metadata = {
  title: "Atelier",
  description: "Run image, video, audio and 3D models through one API and studio.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        {/* Before the page's scripts: what is typed until hydration is kept (components/early-input.ts). */}
        <script dangerouslySetInnerHTML={{ __html: EARLY_INPUT_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-zinc-50 font-sans text-zinc-900 antialiased">{children}</body>
    </html>
  );
}
