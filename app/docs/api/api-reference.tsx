"use client";
// The reference itself: GET /v1/openapi.json from this server, then Scalar draws it. Scalar
// touches window and document as it loads, so it is loaded in the browser only (ssr: false).
import dynamic from "next/dynamic";
import { useCallback, useEffect, useState } from "react";
import { ErrorPanel } from "@/components/error-state";
import { Bone, PageSkeleton } from "@/components/skeleton";

type Loaded =
  | { state: "loading" }
  | { state: "ready"; spec: Record<string, unknown> }
  | { state: "failed"; message: string; requestId: string | null };

function ReferenceSkeleton() {
  return (
    <PageSkeleton label="Loading the API reference" className="max-w-7xl px-4 sm:px-6">
      <div className="flex gap-8 border-t border-zinc-200 pt-8">
        <div className="hidden w-56 shrink-0 space-y-3 md:block">
          {Array.from({ length: 10 }, (_, i) => (
            <Bone key={i} className={`h-4 ${i % 3 === 0 ? "w-32" : "w-44 bg-zinc-100"}`} />
          ))}
        </div>
        <div className="min-w-0 flex-1 space-y-4">
          <Bone className="h-8 w-64" />
          <Bone className="h-4 w-full max-w-2xl bg-zinc-100" />
          <Bone className="h-4 w-full max-w-xl bg-zinc-100" />
          <Bone className="mt-8 h-40 w-full max-w-3xl bg-zinc-100" />
        </div>
      </div>
    </PageSkeleton>
  );
}

const ScalarReference = dynamic(() => import("./scalar-reference"), { ssr: false, loading: ReferenceSkeleton });

async function loadDocument(): Promise<Loaded> {
  let res: Response;
  try {
    res = await fetch("/v1/openapi.json", { headers: { accept: "application/json" } });
  } catch {
    return { state: "failed", message: "The server could not be reached.", requestId: null };
  }
  const requestId = res.headers.get("x-request-id");
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string; request_id?: string } } | null;
    return {
      state: "failed",
      message: body?.error?.message ?? `The server answered ${res.status}.`,
      requestId: body?.error?.request_id ?? requestId,
    };
  }
  const spec = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!spec || typeof spec !== "object")
    return { state: "failed", message: "The server's answer was not a JSON document.", requestId };
  return { state: "ready", spec };
}

export function ApiReference() {
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  const load = useCallback(() => {
    setLoaded({ state: "loading" });
    void loadDocument().then(setLoaded);
  }, []);
  useEffect(() => {
    let live = true;
    void loadDocument().then((result) => {
      if (live) setLoaded(result);
    });
    return () => {
      live = false;
    };
  }, []);

  if (loaded.state === "loading") return <ReferenceSkeleton />;
  if (loaded.state === "failed") {
    return (
      <div className="mx-auto max-w-4xl px-4 sm:px-6">
        <ErrorPanel
          heading="h2"
          title="The API reference could not be loaded"
          message={loaded.message}
          reference={loaded.requestId}
          onRetry={load}
        />
      </div>
    );
  }
  return (
    <div data-testid="api-reference" className="border-t border-zinc-200">
      <ScalarReference spec={loaded.spec} />
    </div>
  );
}
