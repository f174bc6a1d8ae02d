// The ops Providers page's read (issue 37): every stored provider as the catalog verbs present it
// (settings and how its key is given, never the key), with its entries by state and its health as
// the store records it (lib/core/ops/provider-health.ts). Only an operator reads it: it takes the
// OpsCtx that only opsPrincipal() makes.
import type { OpsCtx } from "../../core/ops/ops-principal";
import { providerHealthRecords, type ProviderHealthRecord } from "../../core/ops/provider-health";
import { listStoredEntries, listStoredProviders, type StoredProvider } from "./catalog-verbs";

export interface OpsProvider extends StoredProvider, ProviderHealthRecord {
  published: number;
  drafts: number;
}

export async function opsProviders(ctx: OpsCtx, options: { now?: Date } = {}): Promise<OpsProvider[]> {
  const catalog = { db: ctx.db, actingAs: ctx };
  const [providers, entries] = await Promise.all([listStoredProviders(catalog), listStoredEntries(catalog)]);
  const health = await providerHealthRecords(
    ctx,
    providers.map((p) => p.id),
    options,
  );
  return providers.map((provider) => {
    const mine = entries.filter((e) => e.provider === provider.id);
    return {
      ...provider,
      published: mine.filter((e) => e.state === "published").length,
      drafts: mine.filter((e) => e.state === "draft").length,
      ...health.get(provider.id)!,
    };
  });
}
