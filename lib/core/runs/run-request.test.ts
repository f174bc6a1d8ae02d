import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, testCtx, type TestStore } from "../../store/testing/test-store";
import type { Ctx } from "../context";
import { createWorkspace } from "../workspaces/workspaces";
import { ApiError } from "../../primitives/errors";
import { priceRunRequest } from "./quotes";
import { parseRunRequest } from "./run-request";

function refusal(fn: () => unknown): ApiError {
  let caught: unknown = null;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ApiError);
  expect((caught as ApiError).code).toBe("invalid_parameter");
  return caught as ApiError;
}

describe("parseRunRequest", () => {
  it("reads model, input and webhook", () => {
    expect(
      parseRunRequest({ model: "atelier/gradient", input: { prompt: "x" }, webhook: "https://example.com/hook" }),
    ).toEqual({
      model: "atelier/gradient",
      input: { prompt: "x" },
      webhook: "https://example.com/hook",
    });
    expect(parseRunRequest({ model: "atelier/gradient-poster@2" })).toEqual({
      model: "atelier/gradient-poster@2",
      input: {},
      webhook: null,
    });
    expect(parseRunRequest({ model: "atelier/gradient", webhook: null }).webhook).toBeNull();
  });

  it("needs a body that is an object", () => {
    for (const body of [null, [], "x", 1]) {
      const err = refusal(() => parseRunRequest(body));
      expect(err.param).toBeNull();
      expect(err.message).toMatch(/^The request body must be a JSON object/);
    }
  });

  it("needs a model ID that is a string of the catalog's shape", () => {
    const missing = refusal(() => parseRunRequest({ input: {} }));
    expect(missing.param).toBe("model");
    expect(missing.message).toMatch(/model is required/);
    expect(refusal(() => parseRunRequest({ model: 42 })).message).toMatch(/model must be a string; got a number/);
    for (const model of [
      "gradient",
      "Atelier/Gradient",
      "atelier/gradient@0",
      "atelier/gradient@10000",
      "atelier/gra dient",
      "a/b/c",
      "",
    ]) {
      const err = refusal(() => parseRunRequest({ model }));
      expect(err.param).toBe("model");
      expect(err.message).toContain("<creator>/<name>");
    }
    expect(parseRunRequest({ model: "atelier/gradient@9999" }).model).toBe("atelier/gradient@9999");
  });

  it("limits the model ID to 100 characters", () => {
    const ok = `atelier/${"a".repeat(92)}`;
    expect(ok).toHaveLength(100);
    expect(parseRunRequest({ model: ok }).model).toBe(ok);
    const err = refusal(() => parseRunRequest({ model: `${ok}a` }));
    expect(err.param).toBe("model");
    expect(err.message).toContain("at most 100 characters");
  });

  it("refuses an unknown field, naming it", () => {
    const err = refusal(() => parseRunRequest({ model: "atelier/gradient", prompt: "x" }));
    expect(err.param).toBe("prompt");
    expect(err.message).toContain('Unknown field "prompt"');
    expect(err.message).toContain("model, input, webhook");
  });

  it("needs input to be an object", () => {
    for (const input of ["x", [], null, 3]) {
      const err = refusal(() => parseRunRequest({ model: "atelier/gradient", input }));
      expect(err.param).toBe("input");
      expect(err.message).toMatch(/^input must be a JSON object/);
    }
  });

  it("takes only https webhooks of at most 2048 characters", () => {
    const base = "https://example.com/";
    const longest = base + "a".repeat(2048 - base.length);
    expect(parseRunRequest({ model: "atelier/gradient", webhook: longest }).webhook).toBe(longest);
    const tooLong = refusal(() => parseRunRequest({ model: "atelier/gradient", webhook: `${longest}a` }));
    expect(tooLong.param).toBe("webhook");
    expect(tooLong.message).toContain("at most 2048 characters");

    const http = refusal(() => parseRunRequest({ model: "atelier/gradient", webhook: "http://example.com/hook" }));
    expect(http.param).toBe("webhook");
    expect(http.message).toContain("must use https://");
    for (const webhook of ["not a url", "/relative", "ftp://example.com", 42, "https://user:pass@example.com/"]) {
      expect(refusal(() => parseRunRequest({ model: "atelier/gradient", webhook })).param).toBe("webhook");
    }
  });

  it("puts a batch item's prefix in every param", () => {
    const prefix = "requests[3].";
    expect(refusal(() => parseRunRequest({ model: "atelier/gradient", extra: 1 }, prefix)).param).toBe(
      "requests[3].extra",
    );
    expect(refusal(() => parseRunRequest({ model: "Bad" }, prefix)).param).toBe("requests[3].model");
    expect(refusal(() => parseRunRequest({}, prefix)).param).toBe("requests[3].model");
    expect(refusal(() => parseRunRequest({ model: "atelier/gradient", input: 1 }, prefix)).param).toBe(
      "requests[3].input",
    );
    expect(refusal(() => parseRunRequest({ model: "atelier/gradient", webhook: "http://x.y" }, prefix)).param).toBe(
      "requests[3].webhook",
    );
    const notObject = refusal(() => parseRunRequest("x", prefix));
    expect(notObject.param).toBe("requests[3]");
    expect(notObject.message).toMatch(/^requests\[3\] must be a JSON object/);
  });
});

describe("priceRunRequest", () => {
  let t: TestStore;
  let ctx: Ctx;
  beforeAll(async () => {
    t = await openTestStore();
    const workspace = await createWorkspace({ db: t.store.db }, { name: "pricing" });
    ctx = testCtx(t, workspace.id);
  });
  afterAll(async () => {
    await t.cleanup();
  });

  async function refusedAsync(promise: Promise<unknown>): Promise<ApiError> {
    const caught = await promise.then(
      () => null,
      (err: unknown) => err,
    );
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).code).toBe("invalid_parameter");
    return caught as ApiError;
  }

  it("resolves, validates and prices", async () => {
    const priced = await priceRunRequest(ctx, {
      model: "atelier/gradient",
      input: { prompt: "x", num_images: 3, resolution: "hd" },
    });
    expect(priced.modelId).toBe("atelier/gradient");
    expect(priced.costMicros).toBe(12_000);
    expect(priced.holdMicros).toBe(12_000);
    expect(priced.input).toMatchObject({ aspect_ratio: "1:1", format: "png" });
    expect(priced.headers).toEqual({});
    expect(
      (await priceRunRequest(ctx, { model: "atelier/gradient-poster", input: { prompt: "p", title: "t" } })).modelId,
    ).toBe("atelier/gradient-poster@2");
    expect(
      (await priceRunRequest(ctx, { model: "atelier/gradient-classic", input: { prompt: "p" } })).headers.Deprecation,
    ).toBe("@1790812800");
  });

  it("puts a batch item's prefix in model and input params", async () => {
    const input = await refusedAsync(
      priceRunRequest(ctx, { model: "atelier/gradient", input: { prompt: "x", colour: "red" } }, "requests[3]."),
    );
    expect(input.param).toBe("requests[3].input.colour");
    const unknown = await refusedAsync(priceRunRequest(ctx, { model: "atelier/nope", input: {} }, "requests[3]."));
    expect(unknown.param).toBe("requests[3].model");
    expect(unknown.message).toContain('No model or preset "atelier/nope"');
  });
});
