"use client";
// A studio page that failed on the server: the frame (sidebar, balance) stays, the page body
// becomes the error state with its reference.
import { ErrorState } from "@/components/error-state";

export default function StudioError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorState error={error} reset={reset} />;
}
