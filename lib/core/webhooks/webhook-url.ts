// Where deliveries may go (docs/api.md, "Webhook deliveries"): checked when a URL is registered — a run's `webhook`,
// an endpoint's `url` — and again by the sender on every attempt.
import { checkWebhookUrl } from "../../primitives/http/ssrf";
import type { Services } from "../context";
import { ApiError } from "../../primitives/errors";

export async function requireSafeWebhookUrl(
  services: Pick<Services, "webhooks">,
  url: string,
  param: string,
): Promise<void> {
  const checked = await checkWebhookUrl(url, { allowInsecure: services.webhooks.allowInsecure });
  if (!checked.ok) throw new ApiError("invalid_parameter", `${param} is refused: ${checked.reason}.`, { param });
}
