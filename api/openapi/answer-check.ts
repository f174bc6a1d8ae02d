// Checks an answer (or a request body) against the OpenAPI document: the operation its method and
// path name, the status documented for it, and the JSON body against that status's schema. The
// API tests run every answer they receive through it (e2e/api/fixtures.ts), so the document and
// the code cannot drift apart unnoticed.
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

const DOC_ID = "atelier-openapi";

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
}

/** JSON Pointer escaping of one token. */
const pointer = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1");

export interface AnswerChecker {
  /** The documented path template a request goes to; null when the document has no such operation. */
  operationOf(method: string, path: string): string | null;
  /** Why the answer disagrees with the document; [] when it agrees; null when no operation matches. */
  checkAnswer(answer: {
    method: string;
    path: string;
    status: number;
    contentType: string | null;
    body: string;
  }): string[] | null;
  /** Why a JSON request body disagrees with the operation's request schema; null when there is none to check. */
  checkRequestBody(request: { method: string; path: string; body: unknown }): string[] | null;
}

export function answerChecker(document: Record<string, unknown>): AnswerChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, DOC_ID);
  const compiled = new Map<string, ValidateFunction>();
  const validator = (path: string[]): ValidateFunction => {
    const ref = `${DOC_ID}#/${path.map(pointer).join("/")}`;
    let fn = compiled.get(ref);
    if (!fn) {
      fn = ajv.getSchema(ref);
      if (!fn) throw new Error(`No schema at ${ref}`);
      compiled.set(ref, fn);
    }
    return fn;
  };

  const paths = document.paths as Record<
    string,
    Record<
      string,
      {
        responses: Record<string, { $ref?: string; content?: Record<string, unknown> }>;
        requestBody?: { content: Record<string, unknown> };
      }
    >
  >;
  const routes: Route[] = [];
  for (const [template, methods] of Object.entries(paths)) {
    for (const method of Object.keys(methods)) {
      const source = template.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+");
      routes.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${source}/?$`),
        params: (template.match(/\{/g) ?? []).length,
      });
    }
  }
  // A literal segment wins over a parameter (/v1/webhooks/default/secret before /v1/webhooks/{id}).
  routes.sort((a, b) => a.params - b.params);

  const operationOf = (method: string, path: string) =>
    routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(path))?.template ?? null;
  const messages = (fn: ValidateFunction) =>
    (fn.errors ?? []).map(
      (e) =>
        `${e.instancePath || "(body)"} ${e.message ?? "is invalid"}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`,
    );

  return {
    operationOf,
    checkAnswer({ method, path, status, contentType, body }) {
      const template = operationOf(method, path);
      if (!template) return null;
      const operation = paths[template]![method.toLowerCase()]!;
      const key = String(status) in operation.responses ? String(status) : `${String(status)[0]}XX`;
      const listed = operation.responses[key];
      if (!listed)
        return [
          `${method} ${template} answered ${status}, which the document does not list (it lists ${Object.keys(operation.responses).join(", ")}).`,
        ];
      // A shared answer (components.responses) is followed to where its schema is.
      const at = listed.$ref
        ? listed.$ref
            .slice(2)
            .split("/")
            .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
        : ["paths", template, method.toLowerCase(), "responses", key];
      const response = (
        listed.$ref ? at.reduce<unknown>((node, token) => (node as Record<string, unknown>)[token], document) : listed
      ) as { content?: Record<string, unknown> };
      const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
      if (!response.content) return [];
      if (mediaType !== "application/json") {
        const listed = Object.keys(response.content);
        const fits = listed.some(
          (m) => m === "*/*" || m === mediaType || (m.endsWith("/*") && mediaType.startsWith(m.slice(0, -1))),
        );
        return fits
          ? []
          : [
              `${method} ${template} ${status} answered ${mediaType || "no content type"}; the document lists ${listed.join(", ")}.`,
            ];
      }
      if (!("application/json" in response.content))
        return [
          `${method} ${template} ${status} answered JSON; the document lists ${Object.keys(response.content).join(", ")}.`,
        ];
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        return [`${method} ${template} ${status} answered a body that is not JSON.`];
      }
      const fn = validator([...at, "content", "application/json", "schema"]);
      return fn(json) ? [] : messages(fn).map((m) => `${method} ${template} ${status}: ${m}`);
    },
    checkRequestBody({ method, path, body }) {
      const template = operationOf(method, path);
      if (!template) return null;
      const content = paths[template]![method.toLowerCase()]!.requestBody?.content;
      if (!content || !("application/json" in content)) return null;
      const fn = validator([
        "paths",
        template,
        method.toLowerCase(),
        "requestBody",
        "content",
        "application/json",
        "schema",
      ]);
      return fn(body) ? [] : messages(fn).map((m) => `${method} ${template} request: ${m}`);
    },
  };
}
