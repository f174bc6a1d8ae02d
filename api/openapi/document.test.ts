import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import type { ApiDeps } from "../env";
import { addApiRoutes } from "../app";
import type { Method, Router } from "../route";
import { answerChecker } from "./answer-check";
import { openApiDocument, openApiPath } from "./document";
import { OPERATIONS } from "./operations";

/** Every route the API registers, through a router that only lists them. */
function servedRoutes(): string[] {
  const routes: string[] = [];
  const add = (method: Method, path: string) => void routes.push(`${method} ${path}`);
  const router: Router = { routes: [], deps: {} as ApiDeps, keyed: add, open: add };
  addApiRoutes(router, {} as ApiDeps);
  return routes;
}

const doc = () =>
  structuredClone(openApiDocument()) as Record<string, unknown> & {
    paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  };

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document (a well-kept validator's verdict)", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("describes exactly the routes the API serves, and nothing else", () => {
    const served = servedRoutes().sort();
    expect(Object.keys(OPERATIONS).sort()).toEqual(served);
    const documented = Object.entries(doc().paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(
      served
        .map((r) => {
          const [m, p] = r.split(" ");
          return `${m} ${openApiPath(p!)}`;
        })
        .sort(),
    );
  });

  it("gives each operation a unique id, curl and SDK examples, and the error envelope for every error status", () => {
    const ids = new Set<string>();
    const document = doc();
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        expect(ids.has(op.operationId), `${method} ${path}`).toBe(false);
        ids.add(op.operationId);
        const samples = (op as unknown as { "x-codeSamples": Array<{ label: string; source: string }> })[
          "x-codeSamples"
        ];
        expect(samples.map((s) => s.label)).toEqual(["curl", "SDK"]);
        expect(samples[0]!.source).toContain(path.replace(/\{\w+\}/g, "").split("/")[2]!);
        for (const status of Object.keys(op.responses).filter((s) => Number(s) >= 400)) {
          const ref = (op.responses[status] as { $ref: string }).$ref;
          const shared = (document.components as { responses: Record<string, unknown> }).responses[
            ref.split("/").pop()!
          ];
          expect(JSON.stringify(shared), `${method} ${path} ${status}`).toContain("#/components/schemas/Error");
        }
      }
    }
  });

  it("every key route documents 401 and 403 and both security schemes; the public catalog needs none", () => {
    const paths = doc().paths;
    const listModels = paths["/v1/models"]!.get as unknown as {
      security: unknown[];
      responses: Record<string, unknown>;
    };
    expect(listModels.security).toEqual([{ ApiKey: [] }, { Bearer: [] }]);
    expect(Object.keys(listModels.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "429", "500", "503"]),
    );
    const publicModels = paths["/v1/public/models"]!.get as unknown as {
      security: unknown[];
      responses: Record<string, unknown>;
    };
    expect(publicModels.security).toEqual([]);
    expect(publicModels.responses["401"]).toBeUndefined();
  });

  it("every object a component names the fields of is closed, so an extra field fails the answer check", () => {
    const open: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
      if (typeof node !== "object" || node === null) return;
      const schema = node as Record<string, unknown>;
      if ("properties" in schema && schema.additionalProperties !== false) open.push(at);
      for (const [key, value] of Object.entries(schema)) walk(value, `${at}/${key}`);
    };
    const schemas = (doc().components as { schemas: Record<string, unknown> }).schemas;
    for (const [name, schema] of Object.entries(schemas)) walk(schema, name);
    expect(open).toEqual([]);
    expect(Object.keys(schemas).length).toBeGreaterThan(30);
  });

  it("the checker refuses what the document does not allow and takes what it does", () => {
    const checker = answerChecker(doc());
    const answer = (status: number, body: unknown, path = "/v1/credits") =>
      checker.checkAnswer({
        method: "GET",
        path,
        status,
        contentType: "application/json; charset=utf-8",
        body: JSON.stringify(body),
      });
    expect(answer(200, { object: "credits", available_usd: "10.00", held_usd: "0.00" })).toEqual([]);
    expect(answer(200, { object: "credits", available_usd: 10, held_usd: "0.00" })!.join()).toContain("/available_usd");
    expect(answer(200, { object: "credits", available_usd: "10.00", held_usd: "0.00", extra: 1 })!.join()).toContain(
      "additional",
    );
    // GET /v1/budgets: amounts are dollar strings or null, and nothing beyond the shape's fields.
    const budget = {
      object: "budget",
      scope: "member",
      subject_id: "usr_abc",
      email: "a@example.com",
      daily_usd: "5.00",
      monthly_usd: null,
      spent_today_usd: "0.002",
      spent_this_month_usd: null,
      left_today_usd: "4.998",
      left_this_month_usd: null,
      updated_at: "2026-05-01T09:30:00.000Z",
    };
    expect(answer(200, { object: "list", data: [budget] }, "/v1/budgets")).toEqual([]);
    expect(
      answer(200, { object: "list", data: [{ ...budget, left_today_usd: 4.998 }] }, "/v1/budgets")!.join(),
    ).toContain("/left_today_usd");
    expect(
      answer(200, { object: "list", data: [{ ...budget, scope: "team" }] }, "/v1/budgets")!.length,
    ).toBeGreaterThan(0);
    const error = (code: string, type: string) => ({
      error: { type, code, message: "m", param: null, doc_url: null, request_id: "req_abc" },
    });
    expect(answer(401, error("missing_api_key", "authentication_error"))).toEqual([]);
    expect(answer(401, error("gone", "invalid_request_error"))!.length).toBeGreaterThan(0);
    expect(answer(402, error("insufficient_credit", "billing_error"))![0]).toContain("does not list");
    expect(answer(200, {}, "/v1/nowhere")).toBeNull();
    // A literal segment wins over a parameter.
    expect(checker.operationOf("GET", "/v1/webhooks/default/secret")).toBe("/v1/webhooks/default/secret");
    expect(checker.operationOf("GET", "/v1/webhooks/wh_abc")).toBe("/v1/webhooks/{id}");
    expect(checker.operationOf("GET", "/v1/models/atelier/gradient-poster%401")).toBe("/v1/models/{creator}/{name}");
    expect(
      checker.checkRequestBody({
        method: "POST",
        path: "/v1/generations",
        body: { model: "atelier/gradient", input: { prompt: "x" } },
      }),
    ).toEqual([]);
    expect(
      checker.checkRequestBody({ method: "POST", path: "/v1/generations", body: { input: {} } })!.join(),
    ).toContain("model");
  });
});
