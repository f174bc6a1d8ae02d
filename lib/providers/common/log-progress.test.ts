import { describe, expect, it } from "vitest";
import { progressFromLogs } from "./log-progress";

describe("progress from provider logs", () => {
  it("reads the last tqdm bar or step count, from a string or fal's log lines", () => {
    expect(
      progressFromLogs(
        "Loading weights...\n  0%|          | 0/20 [00:00<?, ?it/s]\n 45%|████▌     | 9/20 [00:03<00:04]",
      ),
    ).toBe(0.45);
    expect(progressFromLogs("Using seed: 1\nstep 3/12")).toBe(0.25);
    expect(progressFromLogs([{ message: "Generating..." }, { message: "100%|██████████| 4/4 [00:00<00:00]" }])).toBe(1);
    expect(progressFromLogs("stage one 100%|███| 4/4\nstage two  20%|█  | 1/5 [00:01]")).toBe(0.2);
  });

  it("tells nothing when the logs hold no progress or something odd", () => {
    expect(progressFromLogs("")).toBeNull();
    expect(progressFromLogs("Loading weights...")).toBeNull();
    expect(progressFromLogs(null)).toBeNull();
    expect(progressFromLogs([{ message: 42 }, "x"])).toBeNull();
    expect(progressFromLogs("900%| bar")).toBeNull();
    expect(progressFromLogs("date 2026/11/24")).toBeNull();
    expect(progressFromLogs("9/0")).toBeNull();
  });
});
