import { Bone, HeadingBone, PageSkeleton, TableBone } from "@/components/skeleton";

export default function Loading() {
  return (
    <PageSkeleton label="Loading runs">
      <HeadingBone title="w-24" />
      <div className="mb-4 flex flex-wrap gap-3">
        {Array.from({ length: 4 }, (_, i) => (
          <Bone key={i} className="h-9 w-36 rounded-md bg-zinc-100" />
        ))}
      </div>
      <TableBone rows={8} />
    </PageSkeleton>
  );
}
