// The shape shared by quotes, generations and batch items: { model, input, webhook }.
// One parser, so every door and every endpoint refuses the same things the same way.
import { MODEL_ID_MAX_LENGTH, MODEL_ID_PATTERN } from "../catalog/catalog";
import { ApiError } from "../../primitives/errors";
import { LIMITS } from "../../primitives/limits";

export interface RunRequest {
  model: string;
  input: Record<string, unknown>;
  webhook: string | null;
}

export const WEBHOOK_URL_MAX_LENGTH = LIMITS.webhookUrlLength;
const RUN_REQUEST_FIELDS = ["model", "input", "webhook"];

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Refuses any field not in `allowed`, naming it in `param`. */
export function refuseUnknownFields(body: Record<string, unknown>, allowed: readonly string[], prefix = ""): void {
  for (const field of Object.keys(body)) {
    if (!allowed.includes(field)) {
      throw new ApiError(
        "invalid_parameter",
        `Unknown field "${prefix}${field}". Allowed fields: ${allowed.map((f) => prefix + f).join(", ")}.`,
        { param: `${prefix}${field}` },
      );
    }
  }
}

export function requireObject(
  value: unknown,
  param: string | null,
  what = "The request body",
): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ApiError("invalid_parameter", `${what} must be a JSON object; got ${describe(value)}.`, { param });
  }
  return value as Record<string, unknown>;
}

export function parseModelId(value: unknown, param: string): string {
  if (typeof value !== "string") {
    throw new ApiError(
      "invalid_parameter",
      value === undefined
        ? `${param} is required: a catalog ID such as "atelier/gradient".`
        : `${param} must be a string; got ${describe(value)}.`,
      { param },
    );
  }
  if (value.length > MODEL_ID_MAX_LENGTH) {
    throw new ApiError("invalid_parameter", `${param} is at most ${MODEL_ID_MAX_LENGTH} characters long.`, { param });
  }
  if (!MODEL_ID_PATTERN.test(value)) {
    throw new ApiError(
      "invalid_parameter",
      `${param} must look like "<creator>/<name>" or "<creator>/<name>@<version>": lower-case letters, digits and hyphens (and dots in the name), a version from 1 to 9999. Got "${value}".`,
      { param },
    );
  }
  return value;
}

/** The synchronous checks of a webhook URL; the address checks are `requireSafeWebhookUrl`'s. */
export function parseWebhookUrl(value: unknown, param: string, allowInsecure = false): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string")
    throw new ApiError("invalid_parameter", `${param} must be a string URL; got ${describe(value)}.`, { param });
  if (value.length > WEBHOOK_URL_MAX_LENGTH) {
    throw new ApiError("invalid_parameter", `${param} is at most ${WEBHOOK_URL_MAX_LENGTH} characters long.`, {
      param,
    });
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ApiError(
      "invalid_parameter",
      `${param} must be an absolute https:// URL; got "${value.slice(0, 100)}".`,
      { param },
    );
  }
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:")) {
    throw new ApiError("invalid_parameter", `${param} must use https://; got "${url.protocol}".`, { param });
  }
  if (url.username || url.password) {
    throw new ApiError("invalid_parameter", `${param} must not carry a user name or password.`, { param });
  }
  return value;
}

/** Parses `{ model, input, webhook }`; `prefix` is "requests[3]." inside a batch. */
export function parseRunRequest(
  body: unknown,
  prefix = "",
  options: { allowInsecureWebhooks?: boolean } = {},
): RunRequest {
  const object = requireObject(
    body,
    prefix ? prefix.slice(0, -1) : null,
    prefix ? prefix.slice(0, -1) : "The request body",
  );
  refuseUnknownFields(object, RUN_REQUEST_FIELDS, prefix);
  const model = parseModelId(object.model, `${prefix}model`);
  const input = object.input === undefined ? {} : requireObject(object.input, `${prefix}input`, `${prefix}input`);
  return { model, input, webhook: parseWebhookUrl(object.webhook, `${prefix}webhook`, options.allowInsecureWebhooks) };
}
