// POST /v1/provider-webhooks/:run_id?token=… – where Replicate and fal push news of a run's job
// (docs/providers.md, "Push and polling"). Outside the public contract (not in the OpenAPI
// document, not for clients): no API key, the token the server gave the provider for that run is
// the permission. A forged token and an unknown run answer the same 404. The body is read,
// bounded as any JSON body, and dropped: what a provider says is never believed; the answer only
// makes the run's poll look at the job now. 204 at once, so the provider neither waits nor retries.
import { LIMITS } from "../../lib/primitives/limits";
import {
  checkProviderWebhookToken,
  nudgeRunFromProvider,
  PROVIDER_WEBHOOK_PATH,
} from "../../lib/core/runs/provider-webhooks";
import type { ApiDeps } from "../env";
import { emptyResponse } from "../respond";
import { readLimitedBytes, type Router } from "../route";

export function providerWebhookRoutes(router: Router, deps: ApiDeps): void {
  router.open("POST", `${PROVIDER_WEBHOOK_PATH}/:run_id`, { query: ["token"] }, async (c, { params, query }, sys) => {
    const runId = params.run_id!;
    // Before anything else, and without the store: a forged request costs one HMAC.
    checkProviderWebhookToken(deps.services.secretKey, runId, query.token);
    await readLimitedBytes(c.req.raw, LIMITS.jsonBodyBytes, undefined, c.env?.incoming);
    await nudgeRunFromProvider(sys, deps.services, runId);
    return emptyResponse(204);
  });
}
