// @atelier/sdk: the TypeScript client of the Atelier /v1 API.
//
//   import { Atelier } from "@atelier/sdk";
//   const atelier = new Atelier({ apiKey: process.env.ATELIER_API_KEY, baseUrl: process.env.ATELIER_URL });
//   const run = await atelier.run("atelier/gradient", { prompt: "a lighthouse at dawn" });
export {
  Atelier,
  AuditEvents,
  Batches,
  Budgets,
  CreditsResource,
  Events,
  Files,
  Generations,
  isFinal,
  MAX_WAIT_SECONDS,
  modelPath,
  Models,
  Quotes,
  SDK_VERSION,
  Uploads,
  UsageResource,
  Webhooks,
  WorkspaceResource,
  type AtelierOptions,
  type CreateOptions,
  type DirectUploadOptions,
  type FileUploadOptions,
  type RunOptions,
  type UploadData,
  type WaitOptions,
} from "./client.js";
export { AtelierConnectionError, AtelierError, AtelierTimeoutError, type ErrorCode, type ErrorType } from "./errors.js";
export type { FetchLike, RequestOptions, RetryInfo } from "./http.js";
export { backoffMs, isRetryableStatus, parseRetryAfter, retryDelayMs, type RetryPolicy } from "./retry.js";
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from "./webhooks.js";
export type * from "./types.js";
export type { components, operations, paths, webhooks } from "./schema.js";
