import { Bone, PageSkeleton, TableBone } from "@/components/skeleton";

// API keys: the heading beside the Create key button, then the table of keys.
export default function Loading() {
  return (
    <PageSkeleton label="Loading API keys" className="max-w-5xl">
      <div className="mb-6 flex items-end justify-between gap-4">
        <div className="flex-1">
          <Bone className="h-7 w-32" />
          <Bone className="mt-2 h-4 w-full max-w-md bg-zinc-100" />
        </div>
        <Bone className="h-9 w-28 rounded-md" />
      </div>
      <TableBone rows={3} />
    </PageSkeleton>
  );
}
