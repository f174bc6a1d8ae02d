// The AI SDK (the `ai` package and the @ai-sdk/* provider packages) is loaded when a provider entry
// first needs it, not with the module graph: loading it slows every process's start (the admin CLI
// on each call, the server, a worker), and most of them never use it (no providers file, or one
// naming no AI SDK provider). `require` keeps the call sites synchronous, as they were, and names
// each package literally, so bundlers still see them.
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as AiPackage from "ai";

let ai: typeof AiPackage | undefined;

/** The `ai` package, loaded on first use. */
export function aiPackage(): typeof AiPackage {
  return (ai ??= require("ai") as typeof AiPackage);
}

/** Each provider package, loaded when an entry of that provider is first built. */
export const PROVIDER_PACKAGES = {
  blackForestLabs: () => require("@ai-sdk/black-forest-labs") as typeof import("@ai-sdk/black-forest-labs"),
  deepInfra: () => require("@ai-sdk/deepinfra") as typeof import("@ai-sdk/deepinfra"),
  elevenLabs: () => require("@ai-sdk/elevenlabs") as typeof import("@ai-sdk/elevenlabs"),
  fal: () => require("@ai-sdk/fal") as typeof import("@ai-sdk/fal"),
  fireworks: () => require("@ai-sdk/fireworks") as typeof import("@ai-sdk/fireworks"),
  google: () => require("@ai-sdk/google") as typeof import("@ai-sdk/google"),
  lmnt: () => require("@ai-sdk/lmnt") as typeof import("@ai-sdk/lmnt"),
  luma: () => require("@ai-sdk/luma") as typeof import("@ai-sdk/luma"),
  openai: () => require("@ai-sdk/openai") as typeof import("@ai-sdk/openai"),
  openaiCompatible: () => require("@ai-sdk/openai-compatible") as typeof import("@ai-sdk/openai-compatible"),
  replicate: () => require("@ai-sdk/replicate") as typeof import("@ai-sdk/replicate"),
  togetherAi: () => require("@ai-sdk/togetherai") as typeof import("@ai-sdk/togetherai"),
  xai: () => require("@ai-sdk/xai") as typeof import("@ai-sdk/xai"),
};
