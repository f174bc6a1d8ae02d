import { Bone, CardBone, HeadingBone, PageSkeleton } from "@/components/skeleton";

// In the (list) group so it covers the catalog grid only; the model page has its own.
export default function Loading() {
  return (
    <PageSkeleton label="Loading the catalog">
      <HeadingBone title="w-32" />
      <div className="mb-6 flex flex-wrap items-center gap-3">
        <Bone className="h-9 w-64 rounded-lg" />
        <Bone className="h-9 w-32 rounded-lg" />
        <Bone className="h-9 min-w-48 flex-1 rounded-lg bg-zinc-100" />
      </div>
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {Array.from({ length: 6 }, (_, i) => (
          <CardBone key={i} className="overflow-hidden">
            <Bone className="aspect-[16/10] w-full rounded-none bg-zinc-100" />
            <div className="p-4">
              <Bone className="h-4 w-32" />
              <Bone className="mt-2 h-3 w-20 bg-zinc-100" />
              <Bone className="mt-4 h-3 w-full bg-zinc-100" />
              <Bone className="mt-2 h-3 w-2/3 bg-zinc-100" />
              <div className="mt-5 flex justify-between">
                <Bone className="h-3 w-28 bg-zinc-100" />
                <Bone className="h-4 w-20" />
              </div>
            </div>
          </CardBone>
        ))}
      </div>
    </PageSkeleton>
  );
}
