export default function Loading() {
  return (
    <div className="mx-auto max-w-6xl animate-pulse" aria-busy="true" aria-label="Loading run">
      <div className="mb-3 h-4 w-48 rounded bg-zinc-200" />
      <div className="mb-6 h-7 w-80 rounded bg-zinc-200" />
      <div className="grid gap-6 lg:grid-cols-[2fr_1fr]">
        <div className="h-96 rounded-lg bg-zinc-200" />
        <div className="h-64 rounded-lg bg-zinc-200" />
      </div>
    </div>
  );
}
