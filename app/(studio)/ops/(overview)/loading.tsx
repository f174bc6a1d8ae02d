import { Bone, CardBone, HeadingBone, PageSkeleton, TableBone } from "@/components/skeleton";

// Ops: queue figures, the models, the filters, failure reasons, the latest runs, then adding credit.
export default function Loading() {
  return (
    <PageSkeleton label="Loading ops">
      <HeadingBone title="w-20" />
      <div className="space-y-8">
        <div className="grid gap-4 sm:grid-cols-3">
          {Array.from({ length: 3 }, (_, i) => (
            <CardBone key={i} className="p-4">
              <Bone className="h-3 w-24 bg-zinc-100" />
              <Bone className="mt-2 h-7 w-12" />
            </CardBone>
          ))}
        </div>
        <CardBone className="space-y-3 p-5">
          <Bone className="h-5 w-24" />
          {Array.from({ length: 5 }, (_, i) => (
            <Bone key={i} className="h-8 bg-zinc-100" />
          ))}
        </CardBone>
        <CardBone className="grid gap-3 px-5 py-4 sm:grid-cols-[1fr_1fr_1fr_auto] sm:items-end">
          {Array.from({ length: 3 }, (_, i) => (
            <div key={i} className="space-y-1.5">
              <Bone className="h-3 w-24 bg-zinc-100" />
              <Bone className="h-9 rounded-md bg-zinc-100" />
            </div>
          ))}
          <Bone className="h-9 w-16 rounded-md" />
        </CardBone>
        <CardBone className="p-5">
          <Bone className="h-5 w-36" />
          <Bone className="mt-4 h-4 w-2/3 bg-zinc-100" />
          <Bone className="mt-2 h-4 w-1/2 bg-zinc-100" />
        </CardBone>
        <TableBone rows={8} />
      </div>
    </PageSkeleton>
  );
}
