// Quotes (docs/api.md, "Quotes"): exact prices, defaults filled, input checked against the
// model's schema, lifecycle headers and 410, and no change to the balance.
import type { Quote } from "../../lib/core/runs/generation-shape";
import { expect, test, type APIRequestContext } from "./fixtures";
import { createKey, createWorkspace, type CreatedKey } from "./admin";
import {
  type ApiErrorBody,
  expectDeprecationHeaders,
  expectError,
  expectNoDeprecationHeaders,
  expectOk,
  expectStandardHeaders,
  keyHeader,
  NAMES_GRADIENT,
} from "./helpers";

let key: CreatedKey;
let headers: Record<string, string>;
let emptyHeaders: Record<string, string>;

test.beforeAll(() => {
  const workspace = createWorkspace({ credit: "3" });
  key = createKey(workspace.id);
  headers = keyHeader(key.key);
  const empty = createWorkspace();
  emptyHeaders = keyHeader(createKey(empty.id).key);
});

async function revisionOf(request: APIRequestContext, id: string): Promise<string> {
  const model = await expectOk<{ revision: string }>(await request.get(`/v1/public/models/${id}`));
  return model.revision;
}

function quote(request: APIRequestContext, body: unknown, h: Record<string, string> = headers) {
  return request.post("/v1/quotes", { headers: h, data: body as Record<string, unknown> });
}

test.describe("prices", () => {
  test("atelier/gradient with a prompt: defaults filled, $0.002", async ({ request }) => {
    const res = await quote(request, { model: "atelier/gradient", input: { prompt: "x" } });
    const body = await expectOk<Quote>(res);
    expectNoDeprecationHeaders(res);
    expect(body).toEqual({
      object: "quote",
      model: "atelier/gradient",
      revision: await revisionOf(request, "atelier/gradient"),
      input: { prompt: "x", aspect_ratio: "1:1", resolution: "standard", num_images: 1, format: "png" },
      cost_usd: "0.002",
      hold_usd: "0.002",
    });
  });

  test("three HD images: $0.012", async ({ request }) => {
    const res = await quote(request, {
      model: "atelier/gradient",
      input: { prompt: "x", num_images: 3, resolution: "hd" },
    });
    const body = await expectOk<Quote>(res);
    expect(body.input).toEqual({ prompt: "x", aspect_ratio: "1:1", resolution: "hd", num_images: 3, format: "png" });
    expect(body.cost_usd).toBe("0.012");
    expect(body.hold_usd).toBe("0.012");
  });

  test("the price scales with num_images; given values are kept", async ({ request }) => {
    const body = await expectOk<Quote>(
      await quote(request, {
        model: "atelier/gradient",
        input: { prompt: "y", num_images: 4, aspect_ratio: "16:9", format: "webp", seed: 7 },
      }),
    );
    expect(body.input).toEqual({
      prompt: "y",
      aspect_ratio: "16:9",
      resolution: "standard",
      num_images: 4,
      format: "webp",
      seed: 7,
    });
    expect(body.cost_usd).toBe("0.008");
  });

  test("a preset version is quoted at its own price and revision", async ({ request }) => {
    const body = await expectOk<Quote>(
      await quote(request, { model: "atelier/gradient-poster@1", input: { prompt: "x", title: "Hello" } }),
    );
    expect(body.model).toBe("atelier/gradient-poster@1");
    expect(body.revision).toBe(await revisionOf(request, "atelier/gradient-poster@1"));
    expect(body.input).toEqual({ prompt: "x", title: "Hello" });
    expect(body.cost_usd).toBe("0.005");
  });

  test("a workspace with no credit can still quote", async ({ request }) => {
    const body = await expectOk<Quote>(
      await quote(request, { model: "atelier/gradient", input: { prompt: "x" } }, emptyHeaders),
    );
    expect(body.cost_usd).toBe("0.002");
  });

  test("an https webhook is accepted", async ({ request }) => {
    const res = await quote(request, {
      model: "atelier/gradient",
      input: { prompt: "x" },
      webhook: "https://example.com/hook",
    });
    expect((await expectOk<Quote>(res)).cost_usd).toBe("0.002");
  });
});

test.describe("invalid input → 400 invalid_parameter with param", () => {
  test("a value outside the enum names the allowed values", async ({ request }) => {
    const schema = await expectOk<{ input_schema: { properties: { aspect_ratio: { enum: string[] } } } }>(
      await request.get("/v1/public/models/atelier/gradient"),
    );
    const allowed = schema.input_schema.properties.aspect_ratio.enum;
    expect(allowed.length).toBeGreaterThan(1);
    const res = await quote(request, { model: "atelier/gradient", input: { prompt: "x", aspect_ratio: "5:5" } });
    const error = await expectError(res, 400, "invalid_parameter", { param: "input.aspect_ratio" });
    for (const value of allowed) expect(error.message).toContain(value);
  });

  test("num_images out of bounds states 1 and 4", async ({ request }) => {
    for (const n of [9, 0]) {
      const res = await quote(request, { model: "atelier/gradient", input: { prompt: "x", num_images: n } });
      const error = await expectError(res, 400, "invalid_parameter", { param: "input.num_images" });
      expect(error.message).toMatch(/\b1\b[^\d]+\b4\b/);
    }
  });

  test("num_images of the wrong type", async ({ request }) => {
    for (const n of ["2", 2.5]) {
      const res = await quote(request, { model: "atelier/gradient", input: { prompt: "x", num_images: n } });
      await expectError(res, 400, "invalid_parameter", { param: "input.num_images" });
    }
  });

  test("an unknown input field → input.<field>", async ({ request }) => {
    const res = await quote(request, { model: "atelier/gradient", input: { prompt: "x", colour: "red" } });
    const error = await expectError(res, 400, "invalid_parameter", { param: "input.colour" });
    expect(error.message).toContain("colour");
  });

  test("a missing prompt → input.prompt", async ({ request }) => {
    for (const body of [{ model: "atelier/gradient", input: {} }, { model: "atelier/gradient" }]) {
      await expectError(await quote(request, body), 400, "invalid_parameter", { param: "input.prompt" });
    }
  });

  test("an empty prompt → input.prompt", async ({ request }) => {
    await expectError(
      await quote(request, { model: "atelier/gradient", input: { prompt: "" } }),
      400,
      "invalid_parameter",
      {
        param: "input.prompt",
      },
    );
  });

  test("a preset without its title → input.title", async ({ request }) => {
    const res = await quote(request, { model: "atelier/gradient-poster@2", input: { prompt: "x" } });
    await expectError(res, 400, "invalid_parameter", { param: "input.title" });
  });

  test("input that is not an object → input", async ({ request }) => {
    for (const input of ["x", [], 3]) {
      await expectError(await quote(request, { model: "atelier/gradient", input }), 400, "invalid_parameter", {
        param: "input",
      });
    }
  });

  test("a model ID that breaks the pattern → model", async ({ request }) => {
    for (const model of [
      "Atelier/Gradient",
      "atelier",
      "atelier/gradient@0",
      "atelier/gradient@01",
      "atelier/gradient@10000",
      "atelier/grad ient",
      `atelier/${"a".repeat(100)}`,
      42,
    ]) {
      const res = await quote(request, { model, input: { prompt: "x" } });
      await expectError(res, 400, "invalid_parameter", { param: "model" });
    }
  });

  test("a missing model → model", async ({ request }) => {
    for (const body of [{ input: { prompt: "x" } }, {}]) {
      await expectError(await quote(request, body), 400, "invalid_parameter", { param: "model" });
    }
  });

  test("an empty body → model", async ({ request }) => {
    const res = await request.post("/v1/quotes", { headers });
    await expectError(res, 400, "invalid_parameter", { param: "model" });
  });

  test("a webhook that is not https → webhook", async ({ request }) => {
    for (const webhook of [
      "http://example.com/hook",
      "example.com/hook",
      "ftp://example.com/hook",
      5,
      `https://example.com/${"a".repeat(2048)}`,
    ]) {
      const res = await quote(request, { model: "atelier/gradient", input: { prompt: "x" }, webhook });
      await expectError(res, 400, "invalid_parameter", { param: "webhook" });
    }
  });

  // The errors of POST /v1/quotes are 400 (invalid_parameter), 401, 403, 410, 429
  // and 503: no 404. A model ID that is well-formed but not in the catalog is "not an allowed
  // value" of the body field `model`.
  test("a well-formed model ID not in the catalog → 400 invalid_parameter model", async ({ request }) => {
    const res = await quote(request, { model: "atelier/no-such-model", input: { prompt: "x" } });
    await expectError(res, 400, "invalid_parameter", { param: "model" });
  });
});

test.describe("lifecycle", () => {
  test("a deprecated model is quoted with the deprecation headers", async ({ request }) => {
    const res = await quote(request, { model: "atelier/gradient-classic", input: { prompt: "x" } });
    const body = await expectOk<Quote>(res);
    expect(body.model).toBe("atelier/gradient-classic");
    expect(body.input).toEqual({ prompt: "x", aspect_ratio: "1:1" });
    expect(body.cost_usd).toBe("0.002");
    expectDeprecationHeaders(res);
  });

  test("a retired model → 410 gone naming its replacement", async ({ request }) => {
    const res = await quote(request, { model: "atelier/gradient-legacy", input: { prompt: "x" } });
    expect(res.status()).toBe(410);
    expectStandardHeaders(res);
    const { error } = (await res.json()) as { error: ApiErrorBody };
    expect(error).toMatchObject({
      type: "invalid_request_error",
      code: "gone",
      request_id: res.headers()["x-request-id"],
    });
    expect(error.message).toMatch(NAMES_GRADIENT);
  });

  // docs/api.md, "Errors": param names the field at fault for a 400, else null.
  test("the 410 of a quote has param null", async ({ request }) => {
    const res = await quote(request, { model: "atelier/gradient-legacy", input: { prompt: "x" } });
    await expectError(res, 410, "gone", { param: null });
  });
});

test.describe("side effects and scope", () => {
  test("a quote changes no balance", async ({ request }) => {
    const before = await expectOk(await request.get("/v1/credits", { headers }));
    expect(before).toEqual({ object: "credits", available_usd: "3.00", held_usd: "0.00" });
    for (const input of [{ prompt: "a" }, { prompt: "b", num_images: 4, resolution: "hd" }]) {
      await expectOk(await quote(request, { model: "atelier/gradient", input }));
    }
    await expectOk(await quote(request, { model: "atelier/gradient-poster@2", input: { prompt: "c", title: "T" } }));
    const after = await expectOk(await request.get("/v1/credits", { headers }));
    expect(after).toEqual(before);
  });

  test("a quote needs generations:read", async ({ request }) => {
    const workspace = createWorkspace({ credit: "1" });
    const writer = createKey(workspace.id, { scopes: ["generations:write", "workspace:read"] });
    const res = await quote(request, { model: "atelier/gradient", input: { prompt: "x" } }, keyHeader(writer.key));
    const error = await expectError(res, 403, "permission_denied");
    expect(error.message).toContain("generations:read");

    const reader = createKey(workspace.id, { scopes: ["generations:read"] });
    const ok = await quote(request, { model: "atelier/gradient", input: { prompt: "x" } }, keyHeader(reader.key));
    expect((await expectOk<Quote>(ok)).cost_usd).toBe("0.002");
  });
});
