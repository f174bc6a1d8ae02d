import { Bone, CardBone, PageSkeleton } from "@/components/skeleton";

// The model page: header, then the form beside the result area (stacked on a phone).
export default function Loading() {
  return (
    <PageSkeleton label="Loading the model" className="max-w-7xl">
      <Bone className="mb-2 h-4 w-32 bg-zinc-100" />
      <Bone className="mb-2 h-7 w-64" />
      <Bone className="mb-8 h-4 w-96 max-w-full bg-zinc-100" />
      <div className="grid gap-8 lg:grid-cols-2">
        <CardBone className="space-y-5 p-5">
          {Array.from({ length: 4 }, (_, i) => (
            <div key={i} className="space-y-2">
              <Bone className="h-4 w-28" />
              <Bone className="h-10 w-full rounded-lg bg-zinc-100" />
            </div>
          ))}
        </CardBone>
        <CardBone className="p-5">
          <Bone className="aspect-square w-full rounded-lg bg-zinc-100" />
        </CardBone>
      </div>
    </PageSkeleton>
  );
}
