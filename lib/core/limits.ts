// The one table of request-shape limits the API enforces (SPEC.md "Limits"). Rate limits per
// minute come from configuration; these do not change per deployment.
export const LIMITS = {
  /** Largest JSON request body, in bytes. */
  jsonBodyBytes: 1_000_000,
  /** Largest image accepted by POST /v1/files, in bytes. */
  imageUploadBytes: 4 * 1024 * 1024,
  batchSize: { min: 1, max: 50 },
  preferWaitSeconds: 60,
  pageSize: { min: 1, max: 100, default: 50 },
  cursorLength: { min: 1, max: 512 },
  modelIdLength: 100,
  webhookUrlLength: 2048,
  idempotencyKeyLength: { min: 1, max: 255 },
  outputIndex: { min: 0, max: 63 },
  outputLinkHours: 24,
  eventRetentionDays: 30,
  uploadBytesPerDay: 5 * 1024 ** 3,
  uploadsInFlight: 10,
  rateLimitWindowSeconds: 60,
} as const;
