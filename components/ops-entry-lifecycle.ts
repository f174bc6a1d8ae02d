// An entry's lifecycle in words, for the ops entry pages (server and client alike).

export interface EntryLifecycle {
  deprecated_at?: string;
  sunset_at?: string;
  replaced_by?: string | null;
}

/** "deprecated, sunset 2027-01-31 → acme/next", "retired", or null while it is current. */
export function lifecycleText(lifecycle: unknown, now = Date.now()): string | null {
  if (!lifecycle || typeof lifecycle !== "object") return null;
  const { sunset_at: sunset, replaced_by: replaced } = lifecycle as EntryLifecycle;
  if (!sunset) return null;
  const by = replaced ? ` → ${replaced}` : "";
  return Date.parse(sunset) <= now ? `retired${by}` : `deprecated, sunset ${sunset.slice(0, 10)}${by}`;
}
