// The one table of request-shape limits the API enforces (SPEC.md "Limits"). Rate limits per
// minute come from configuration; these do not change per deployment.
export const LIMITS = {
  /** Largest JSON request body, in bytes. */
  jsonBodyBytes: 1_000_000,
  /** Deepest nesting of objects and arrays in a JSON request body (the body itself is level 1). */
  jsonNestingDepth: 64,
  /** Largest image accepted by POST /v1/files, in bytes. */
  imageUploadBytes: 4 * 1024 * 1024,
  /** Most pixels (width × height) an image may have: sharp's own decoding ceiling, so any image accepted can be read by the models. */
  imagePixels: 16_383 * 16_383,
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
