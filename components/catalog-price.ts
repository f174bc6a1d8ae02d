export { priceLabel } from "@/lib/core/runs/pricing";

export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
}

export function modelHref(id: string): string {
  const [creator, name] = id.split("/");
  return `/catalog/${encodeURIComponent(creator ?? "")}/${encodeURIComponent(name ?? "")}`;
}
