export default function Loading() {
  return (
    <div className="mx-auto max-w-6xl animate-pulse" aria-busy="true" aria-label="Loading runs">
      <div className="mb-6 h-7 w-32 rounded bg-zinc-200" />
      <div className="mb-4 h-9 w-full rounded bg-zinc-200" />
      {Array.from({ length: 8 }, (_, i) => (
        <div key={i} className="mb-2 h-12 w-full rounded bg-zinc-100" />
      ))}
    </div>
  );
}
