import type { Model } from "@/lib/core/catalog";

/** "$0.04 / image", "$0.02 / 1k characters". */
export function priceLabel(pricing: Model["pricing"]): string {
  if (pricing.unit === "character") return `$${(Number(pricing.usd) * 1000).toFixed(2)} / 1k characters`;
  return `$${pricing.usd} / ${pricing.unit}`;
}

export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
}

export function modelHref(id: string): string {
  const [creator, name] = id.split("/");
  return `/catalog/${encodeURIComponent(creator ?? "")}/${encodeURIComponent(name ?? "")}`;
}
