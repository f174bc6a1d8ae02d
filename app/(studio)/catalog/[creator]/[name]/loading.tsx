export default function Loading() {
  return (
    <div className="mx-auto max-w-7xl animate-pulse" aria-busy="true" aria-label="Loading model">
      <div className="mb-2 h-4 w-32 rounded bg-zinc-200" />
      <div className="mb-2 h-7 w-64 rounded bg-zinc-200" />
      <div className="mb-8 h-4 w-96 rounded bg-zinc-200" />
      <div className="grid gap-8 lg:grid-cols-2">
        <div className="h-96 rounded-lg bg-zinc-200" />
        <div className="h-96 rounded-lg bg-zinc-200" />
      </div>
    </div>
  );
}
