import { CardBone, HeadingBone, PageSkeleton, TableBone } from "@/components/skeleton";

// Files: the heading, the upload drop zone, then the table.
export default function Loading() {
  return (
    <PageSkeleton label="Loading files">
      <HeadingBone title="w-20" />
      <CardBone className="mb-6 h-14 border-dashed" />
      <TableBone rows={8} />
    </PageSkeleton>
  );
}
