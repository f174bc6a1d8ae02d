"use client";
// The public catalog for a visitor who is not signed in: a click on a model goes to sign-in with
// that model as the way back (callbackUrl), so signing in lands on the model they chose.
import { useRouter } from "next/navigation";
import type { ReactNode } from "react";

export function SignInFirst({ enabled, children }: { enabled: boolean; children: ReactNode }) {
  const router = useRouter();
  return (
    <div
      onClickCapture={(e) => {
        if (!enabled || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        const link = (e.target as Element).closest?.("a[href^='/catalog/']");
        if (!link) return;
        e.preventDefault();
        e.stopPropagation();
        router.push(`/sign-in?${new URLSearchParams({ callbackUrl: link.getAttribute("href")! })}`);
      }}
    >
      {children}
    </div>
  );
}
