// Progress in parts: a model whose run has stages (rendering, then encoding) or a preset whose run
// has steps gives each its share of 0..1, so the whole only ever moves forward.
import type { RunTools } from "../core/catalog/model-definition";

const clamp01 = (n: number) => Math.min(1, Math.max(0, n));

/**
 * The same tools, their progress mapped into [from, to] of this run's. Hand them to a stage, or
 * call `runStep` on them: a step runs with the tools it was called on, so its own 0..1 fills the
 * preset's share [from, to].
 */
export function stepProgress(tools: RunTools, from: number, to: number): RunTools {
  // Capped at `to`: rounding must not carry one step past where the next begins.
  return {
    ...tools,
    reportProgress: (fraction) => tools.reportProgress(Math.min(to, from + (to - from) * clamp01(fraction))),
  };
}

/** runFfmpeg's onProgress for an output of `duration` seconds: the seconds written as 0..1 of `tools`' range. */
export function encodeProgress(tools: Pick<RunTools, "reportProgress">, duration: number): (seconds: number) => void {
  return (seconds) => tools.reportProgress(duration > 0 ? clamp01(seconds / duration) : 0);
}
