import { describe, expect, it } from "vitest";
import type { GenerationStatus } from "../../store/database";
import { testDialect, useTestStore } from "../../store/testing/test-store";
import { median, typicalRunSeconds, TYPICAL_RUN_SAMPLE } from "./run-timings";
import { createWorkspace } from "../workspaces/workspaces";

describe("median", () => {
  it("is the middle value, the mean of the middle two, or null for none", () => {
    expect(median([])).toBeNull();
    expect(median([4])).toBe(4);
    expect(median([9, 1, 5])).toBe(5);
    expect(median([8, 2, 4, 6])).toBe(5);
  });
});

describe(`typical run seconds (${testDialect()})`, () => {
  const s = useTestStore();
  let n = 0;
  const base = Date.parse("2030-01-01T00:00:00.000Z");

  /** A run of `model` that ended `endedAt` seconds after `base`, having run `seconds`. */
  async function run(
    workspaceId: string,
    model: string,
    status: GenerationStatus,
    seconds: number | null,
    endedAt: number,
  ): Promise<void> {
    const id = `gen_timing${String(++n).padStart(4, "0")}`;
    const completed = seconds === null ? null : new Date(base + endedAt * 1000).toISOString();
    const started = seconds === null ? null : new Date(base + (endedAt - seconds) * 1000).toISOString();
    await s.db
      .insertInto("generations")
      .values({
        id,
        workspace_id: workspaceId,
        model,
        model_base: model.split("@")[0]!,
        modality: "video",
        revision: "2030-01-01",
        status,
        provider: null,
        input_json: "{}",
        output_json: "[]",
        preview_json: null,
        uncancelable_reason: null,
        error_message: null,
        price_micros: 1000,
        charged_micros: status === "succeeded" ? 1000 : null,
        hold_id: null,
        source: "api",
        batch_id: null,
        batch_index: null,
        webhook: null,
        created_by: null,
        created_at: new Date(base + (endedAt - (seconds ?? 0) - 1) * 1000).toISOString(),
        started_at: started,
        completed_at: completed,
        lease_owner: null,
        lease_expires_at: null,
        attempts: 1,
      })
      .execute();
  }

  it("is null for a model without a succeeded run", async () => {
    const ws = await createWorkspace({ db: s.db }, { name: "timings empty", creditMicros: 0 });
    expect(await typicalRunSeconds(s.db, "atelier/timing-none")).toBeNull();
    await run(ws.id, "atelier/timing-none", "failed", 3, 10);
    await run(ws.id, "atelier/timing-none", "running", null, 11);
    expect(await typicalRunSeconds(s.db, "atelier/timing-none")).toBeNull();
  });

  it("is the median of the model's succeeded runs across workspaces, ignoring other models and failures", async () => {
    const a = await createWorkspace({ db: s.db }, { name: "timings a", creditMicros: 0 });
    const b = await createWorkspace({ db: s.db }, { name: "timings b", creditMicros: 0 });
    await run(a.id, "atelier/timing-video", "succeeded", 2, 100);
    await run(b.id, "atelier/timing-video", "succeeded", 4.5, 101);
    await run(a.id, "atelier/timing-video", "succeeded", 3, 102);
    await run(a.id, "atelier/timing-video", "failed", 60, 103);
    await run(b.id, "atelier/timing-video", "canceled", 90, 104);
    await run(a.id, "atelier/timing-other", "succeeded", 50, 105);
    expect(await typicalRunSeconds(s.db, "atelier/timing-video")).toBe(3);
    await run(b.id, "atelier/timing-video", "succeeded", 5, 106);
    expect(await typicalRunSeconds(s.db, "atelier/timing-video")).toBe(3.75);
  });

  it("takes only the last runs to end, so a model that got faster soon reads fast", async () => {
    const ws = await createWorkspace({ db: s.db }, { name: "timings recent", creditMicros: 0 });
    // Thirty slow runs long ago, then twenty fast ones: only the newest twenty count.
    for (let i = 0; i < 30; i++) await run(ws.id, "atelier/timing-faster", "succeeded", 40, 1000 + i);
    for (let i = 0; i < TYPICAL_RUN_SAMPLE - 1; i++)
      await run(ws.id, "atelier/timing-faster", "succeeded", 1.5, 2000 + i);
    // With 19 fast and the newest slow one still in the sample, the median is fast already.
    expect(await typicalRunSeconds(s.db, "atelier/timing-faster")).toBe(1.5);
    await run(ws.id, "atelier/timing-faster", "succeeded", 1.5, 3000);
    expect(await typicalRunSeconds(s.db, "atelier/timing-faster")).toBe(1.5);
    // The sample is the last twenty to end: eleven more slow ones make it slow again.
    for (let i = 0; i < 11; i++) await run(ws.id, "atelier/timing-faster", "succeeded", 40, 4000 + i);
    expect(await typicalRunSeconds(s.db, "atelier/timing-faster")).toBe(40);
  });

  it("counts one version of a preset for a versioned ID, every version without one", async () => {
    const ws = await createWorkspace({ db: s.db }, { name: "timings presets", creditMicros: 0 });
    await run(ws.id, "atelier/timing-preset@1", "succeeded", 10, 5000);
    await run(ws.id, "atelier/timing-preset@1", "succeeded", 12, 5001);
    await run(ws.id, "atelier/timing-preset@2", "succeeded", 2, 5002);
    expect(await typicalRunSeconds(s.db, "atelier/timing-preset@1")).toBe(11);
    expect(await typicalRunSeconds(s.db, "atelier/timing-preset@2")).toBe(2);
    expect(await typicalRunSeconds(s.db, "atelier/timing-preset")).toBe(10);
  });
});
