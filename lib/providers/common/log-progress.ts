// How far a remote job is, read from the log lines providers stream while it runs: diffusion
// pipelines print tqdm bars ("45%|████▌     | 9/20 [00:03<00:04]") or "step 9/20". The last
// such line wins; null when the logs tell nothing.
const PERCENT = /(\d{1,3}(?:\.\d+)?)\s*%\s*\|/g;
const STEPS = /(?:^|[\s|:])(\d{1,6})\s*\/\s*(\d{1,6})(?=[\s\]|,]|$)/gm;

/** Only the end of long logs is read: the last bar is all that matters. */
const TAIL_CHARS = 4_000;

function last<T>(matches: IterableIterator<T>): T | null {
  let found: T | null = null;
  for (const match of matches) found = match;
  return found;
}

export function progressFromLogs(logs: unknown): number | null {
  const text =
    typeof logs === "string"
      ? logs
      : Array.isArray(logs)
        ? logs
            .map((line) => (typeof line === "string" ? line : typeof line?.message === "string" ? line.message : ""))
            .join("\n")
        : "";
  if (!text) return null;
  const tail = text.slice(-TAIL_CHARS);
  const lastLine = tail.trimEnd().split(/\r|\n/).at(-1) ?? "";
  // A bar that started again (the next stage of a pipeline) counts from its own start.
  for (const source of [lastLine, tail]) {
    const percent = last(source.matchAll(PERCENT));
    const steps = last(source.matchAll(STEPS));
    if (percent && (!steps || percent.index! >= steps.index!)) {
      const value = Number(percent[1]);
      if (value <= 100) return value / 100;
    }
    if (steps) {
      const done = Number(steps[1]);
      const total = Number(steps[2]);
      if (total > 0 && done <= total) return done / total;
    }
  }
  return null;
}
