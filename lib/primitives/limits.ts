// The one table of request-shape limits the API enforces (docs/api.md, "Limits"). Rate limits per
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
  /** Most runs one live follower (the studio's /api/runs/events) follows at once. */
  followedRuns: 100,
  /**
   * Most status streams and Prefer: wait reads (MCP waits included) one API key holds open at
   * once; the per-minute rate limit counts requests, not how long they stay. Per process.
   */
  openReadersPerKey: 25,
  /** Most live-run streams (the studio's /api/runs/events) one signed-in user holds open at once. Per process. */
  openReadersPerUser: 25,
  /** Retry-After of the 429 past those caps: a wait ends within preferWaitSeconds, a closed tab frees its stream at once. */
  openReaderRetryAfterSeconds: 5,
  /** Largest credit balance (available + held) of a workspace: $1,000,000,000 in micro-dollars, far below 2^53. */
  maxBalanceMicros: 1_000_000_000 * 1_000_000,
  pageSize: { min: 1, max: 100, default: 50 },
  cursorLength: { min: 1, max: 512 },
  modelIdLength: 100,
  /**
   * Largest stored remote-catalog document (lib/providers/stored-catalog/), in bytes of its JSON:
   * a provider's settings, and an entry (a ComfyUI workflow inline; an SDXL graph is ~3 KiB, a
   * video workflow some 100 KiB).
   */
  catalogDocumentBytes: { provider: 16 * 1024, entry: 1024 * 1024 },
  webhookUrlLength: 2048,
  idempotencyKeyLength: { min: 1, max: 255 },
  outputIndex: { min: 0, max: 63 },
  outputLinkHours: 24,
  eventRetentionDays: 30,
  /** How long audit events are kept unless AUDIT_RETENTION_DAYS says otherwise. */
  auditRetentionDays: 365,
  uploadBytesPerDay: 5 * 1024 ** 3,
  uploadsInFlight: 10,
  rateLimitWindowSeconds: 60,
  /** Largest MCP request body: one JSON-RPC message carrying a base64 image of imageUploadBytes. */
  mcpBodyBytes: 6 * 1024 * 1024,
  /** How long an MCP `generate` waits for the run when the caller names no wait_seconds. */
  mcpDefaultWaitSeconds: 30,
  /** Longest side of an image an MCP tool result carries inline (the full output is linked). */
  mcpInlineImageSide: 1024,
  /** Largest sound an MCP tool result carries inline (larger ones are only linked). */
  mcpInlineAudioBytes: 1024 * 1024,
  /**
   * Studio sign-in tries a minute, per email and per IP address; an email out of tries is locked
   * for firstLockSeconds, twice as long at each further lockout within a day, up to longestLockSeconds.
   */
  signIn: { perEmail: 10, perIp: 30, firstLockSeconds: 60, longestLockSeconds: 3600 },
  /** GET /v1/usage: `to` at most this many days after `from`; the range when neither is given ends today and covers defaultDays. */
  usageRange: { maxDays: 366, defaultDays: 30 },
  /** Studio server actions and live-run streams opened a minute, per signed-in user. */
  studioRequestsPerUserPerMin: 300,
} as const;
