// A preset's steps each fill their share of its progress: stepProgress scales, and runStep hands
// a step the tools it was called on (the real engine does the same: lib/engine/run-tools.ts).
import { describe, expect, it } from "vitest";
import { encodeProgress, stepProgress } from "./progress";
import { objectSchema } from "./common/fields";
import { testRunTools } from "./testing/test-tools";
import type { ModelDefinition } from "../core/catalog/model-definition";

/** A step that reports a quarter, a half and all of its own progress, and reads a file when told one. */
const halves: ModelDefinition = {
  id: "test/halves",
  type: "model",
  name: "Halves",
  creator: "Test",
  modality: "image",
  tasks: [],
  description: "",
  revision: "2026-01-01",
  status: "stable",
  pricing: { unit: "run", usd: "0", drivers: [], overrides: [] },
  lifecycle: null,
  input_schema: objectSchema({ file: { type: "string" } }, []),
  async run(input, tools) {
    if (typeof input.file === "string") await tools.readFile(input.file);
    for (const fraction of [0.25, 0.5, 1]) tools.reportProgress(fraction);
    return [];
  },
};

describe("stepProgress", () => {
  it("maps 0..1 into its share, clamped, and nests", () => {
    const tools = testRunTools();
    const second = stepProgress(tools, 0.5, 1);
    second.reportProgress(0);
    second.reportProgress(0.5);
    second.reportProgress(2);
    stepProgress(second, 0, 0.5).reportProgress(1);
    expect(tools.progress).toEqual([0.5, 0.75, 1, 0.75]);
  });

  it("a step run on scaled tools fills the preset's share, with its files or without", async () => {
    const tools = testRunTools({ models: [halves] });
    await stepProgress(tools, 0, 0.4).runStep(halves.id, {});
    const file = { data: Buffer.from("x"), contentType: "text/plain" };
    await stepProgress(tools, 0.4, 0.8).runStep(halves.id, { file: "file_StepFile" }, { file_StepFile: file });
    expect(tools.progress.map((v) => Number(v.toFixed(9)))).toEqual([0.1, 0.2, 0.4, 0.5, 0.6, 0.8]);
    expect(tools.steps).toEqual([halves.id, halves.id]);
  });

  it("a step run on the tools themselves reports as it is", async () => {
    const tools = testRunTools({ models: [halves] });
    await tools.runStep(halves.id, {});
    expect(tools.progress).toEqual([0.25, 0.5, 1]);
  });
});

describe("encodeProgress", () => {
  it("turns ffmpeg's seconds written into a fraction of the duration, at most 1", () => {
    const tools = testRunTools();
    const onSeconds = encodeProgress(tools, 4);
    for (const seconds of [0, 1, 3, 4.2]) onSeconds(seconds);
    expect(tools.progress).toEqual([0, 0.25, 0.75, 1]);
  });
});
