export default function Loading() {
  return (
    <div className="mx-auto max-w-5xl animate-pulse space-y-8" aria-busy="true" aria-label="Loading webhooks">
      <div>
        <div className="h-7 w-40 rounded bg-zinc-200" />
        <div className="mt-2 h-4 w-full max-w-xl rounded bg-zinc-100" />
      </div>
      <div className="h-36 rounded-lg bg-zinc-200" />
      <div className="space-y-2">
        <div className="h-5 w-32 rounded bg-zinc-200" />
        <div className="h-28 rounded-lg bg-zinc-100" />
      </div>
      <div className="space-y-2">
        <div className="h-5 w-36 rounded bg-zinc-200" />
        {Array.from({ length: 3 }, (_, i) => (
          <div key={i} className="h-20 rounded-lg bg-zinc-100" />
        ))}
      </div>
    </div>
  );
}
