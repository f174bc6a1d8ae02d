import { Bone, CardBone, HeadingBone, PageSkeleton } from "@/components/skeleton";

// Webhooks: the signing secret, the endpoints, then recent events with their deliveries.
export default function Loading() {
  return (
    <PageSkeleton label="Loading webhooks" className="max-w-5xl">
      <HeadingBone title="w-40" />
      <div className="space-y-8">
        <CardBone className="h-36" />
        <div className="space-y-2">
          <Bone className="h-5 w-32" />
          <CardBone className="h-28" />
        </div>
        <div className="space-y-2">
          <Bone className="h-5 w-36" />
          {Array.from({ length: 3 }, (_, i) => (
            <CardBone key={i} className="h-20" />
          ))}
        </div>
      </div>
    </PageSkeleton>
  );
}
