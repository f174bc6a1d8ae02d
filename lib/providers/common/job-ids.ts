// A provider job's ID as the engine carries it between submit and polls: it names the entry too
// ("<entry id>#<the provider's own id>"), so a poll knows what the job produces. Entry IDs are
// catalog IDs, which never hold "#".
import type { ProviderConfig, RemoteEntryConfig } from "./types";

export function entryJobId(entryId: string, remoteId: string): string {
  return `${entryId}#${remoteId}`;
}

export function parseEntryJobId(config: ProviderConfig, jobId: string): { entry: RemoteEntryConfig; remoteId: string } {
  const at = jobId.lastIndexOf("#");
  const entry = at < 0 ? undefined : config.entries.find((e) => e.id === jobId.slice(0, at));
  if (!entry) throw new Error(`${config.kind}: ${jobId} is not a job of the provider ${config.id}`);
  return { entry, remoteId: jobId.slice(at + 1) };
}
