import { Bone, CardBone, PageSkeleton } from "@/components/skeleton";

// The run page: breadcrumb and title, the run with its outputs beside the timeline and input.
export default function Loading() {
  return (
    <PageSkeleton label="Loading the run">
      <Bone className="mb-3 h-4 w-56 bg-zinc-100" />
      <Bone className="mb-6 h-7 w-72" />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <CardBone className="p-5">
          <div className="flex items-center justify-between">
            <Bone className="h-5 w-24 rounded-full" />
            <Bone className="h-4 w-16 bg-zinc-100" />
          </div>
          <Bone className="mt-4 aspect-square w-full rounded-lg bg-zinc-100" />
        </CardBone>
        <div className="flex flex-col gap-6">
          <CardBone className="space-y-4 p-5">
            <Bone className="h-4 w-20" />
            {Array.from({ length: 3 }, (_, i) => (
              <div key={i} className="space-y-1.5 pl-6">
                <Bone className="h-4 w-24" />
                <Bone className="h-3 w-40 bg-zinc-100" />
              </div>
            ))}
          </CardBone>
          <CardBone className="p-5">
            <Bone className="h-4 w-16" />
            <Bone className="mt-3 h-32 w-full rounded-md bg-zinc-100" />
          </CardBone>
        </div>
      </div>
    </PageSkeleton>
  );
}
