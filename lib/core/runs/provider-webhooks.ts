// Push from remote providers (docs/providers.md, "Push and polling"). A provider that offers
// webhooks (Replicate, fal) is given, with each job, a URL on this server that names the run and
// carries a token only this server can make: an HMAC of the run's ID under SECRET_KEY, signed as
// cursors and links are (lib/primitives/signing.ts). A request there is a nudge, never news to
// believe: it wakes the poll loop of the run's job, in whichever process runs it (the run
// signals carry it there), and that poll reads the job's state from the provider as it would
// have anyway. Without PUBLIC_BASE_URL no URL is given and jobs are only polled.
import { sign, verifySignature } from "../../primitives/signing";
import { ApiError } from "../../primitives/errors";
import type { Services, SystemCtx } from "../context";

const PURPOSE = "provider-webhook";

/** Where the API serves it: POST {PUBLIC_BASE_URL}/v1/provider-webhooks/{run_id}?token=… */
export const PROVIDER_WEBHOOK_PATH = "/v1/provider-webhooks";

/** The longest run ID the route looks at (ours are far shorter); anything longer is no run. */
const MAX_RUN_ID_LENGTH = 100;

/** The token of run `runId`'s webhook URL: what proves a request there was given out by this server. */
export function providerWebhookToken(secretKey: string, runId: string): string {
  return sign(secretKey, PURPOSE, runId);
}

/** The webhook URL a provider is given for run `runId`'s job; null when the server has no public address. */
export function providerWebhookUrl(
  services: Pick<Services, "providerWebhookBaseUrl" | "secretKey">,
  runId: string,
): string | null {
  const base = services.providerWebhookBaseUrl;
  if (!base) return null;
  const token = providerWebhookToken(services.secretKey, runId);
  return `${base}${PROVIDER_WEBHOOK_PATH}/${encodeURIComponent(runId)}?${new URLSearchParams({ token })}`;
}

/** The one answer for a forged token, a run that is not there, or no token: nothing tells them apart. */
function notFound(): ApiError {
  return new ApiError(
    "resource_not_found",
    "No run takes provider news at this address: the run does not exist or the token does not match it.",
  );
}

/** Throws 404 unless `token` is the one this server gave out for `runId` (checked in constant time, no store read). */
export function checkProviderWebhookToken(secretKey: string, runId: string, token: string | undefined): void {
  if (!token || runId.length > MAX_RUN_ID_LENGTH || !verifySignature(secretKey, PURPOSE, runId, token))
    throw notFound();
}

/**
 * A provider's webhook for run `runId` arrived (its token already checked): 404 when the run is not
 * in the store; a run still going is nudged (its job polled now, wherever it runs); a finished one
 * is left alone (a late or repeated webhook).
 */
export async function nudgeRunFromProvider(
  sys: SystemCtx,
  services: Pick<Services, "signals">,
  runId: string,
): Promise<void> {
  const run = await sys.db
    .selectFrom("generations")
    .select(["completed_at"])
    .where("id", "=", runId)
    .executeTakeFirst();
  if (!run) throw notFound();
  if (run.completed_at === null) services.signals.providerEvent(runId);
}
