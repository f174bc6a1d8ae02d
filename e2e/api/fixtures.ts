// Every answer an API test receives is checked against the served OpenAPI document
// (GET /v1/openapi.json): its status must be one the operation lists, and a JSON body must fit
// that status's schema; a request body the API accepted (2xx) must fit the documented request
// schema. The specs import `test` and `expect` from here instead of @playwright/test; the
// `request` fixture, contexts made with `checkedContext`, and global fetch are all checked.
import {
  test as base,
  expect,
  request as playwrightRequest,
  type APIRequestContext,
  type APIResponse,
} from "@playwright/test";
import { answerChecker, type AnswerChecker } from "../../api/openapi/answer-check";
import { REPLICAS, SERVERS, TEST_S3 } from "./servers";

export { expect };
export type { APIRequestContext, APIResponse };

/** `request.newContext` of @playwright/test, checked. */
export const request = {
  async newContext(options?: Parameters<typeof playwrightRequest.newContext>[0]): Promise<APIRequestContext> {
    return checkedContext(await playwrightRequest.newContext(options));
  },
};

// Links in answers (upload URLs, blob links) name the servers as localhost (PUBLIC_BASE_URL unset).
// The config's servers and the replicas replicas.spec.ts starts (its webhook receiver's port is not Atelier's).
const ATELIER_BASES = [
  ...Object.values(SERVERS).map((s) => s.baseURL),
  `http://127.0.0.1:${REPLICAS.ports.a}`,
  `http://127.0.0.1:${REPLICAS.ports.b}`,
];
const SERVER_ORIGINS = new Set(
  ATELIER_BASES.flatMap((base) => [new URL(base).origin, new URL(base.replace("127.0.0.1", "localhost")).origin]),
);
// The test bucket is not Atelier: its answers to presigned links and uploads (bytes, S3 XML
// errors) are the S3 API's, never checked against Atelier's document.
const BUCKET_ORIGIN = new URL(TEST_S3.endpoint).origin;
if (SERVER_ORIGINS.has(BUCKET_ORIGIN))
  throw new Error(`fixtures: the test bucket ${TEST_S3.endpoint} shares an origin with an Atelier server`);
let checker: Promise<AnswerChecker> | null = null;

/** The document as the main server serves it, read once per worker. */
function documentChecker(): Promise<AnswerChecker> {
  checker ??= (async () => {
    const api = await playwrightRequest.newContext();
    const res = await api.get(`${SERVERS.main.baseURL}/v1/openapi.json`);
    if (res.status() !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status()}`);
    const doc = (await res.json()) as Record<string, unknown>;
    await api.dispose();
    return answerChecker(doc);
  })();
  return checker;
}

function isJson(contentType: string | null): boolean {
  return !!contentType && /^application\/(?:[\w.+-]+\+)?json/i.test(contentType);
}

async function check(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  readBody: () => Promise<string>,
  sent: unknown,
): Promise<void> {
  const parsed = new URL(url);
  if (parsed.origin === BUCKET_ORIGIN || !SERVER_ORIGINS.has(parsed.origin) || !parsed.pathname.startsWith("/v1/"))
    return;
  const c = await documentChecker();
  const body = isJson(contentType) ? await readBody() : "";
  const problems = c.checkAnswer({ method, path: parsed.pathname, status, contentType, body }) ?? [];
  if (status >= 200 && status < 300 && sent !== undefined && typeof sent === "object" && !Buffer.isBuffer(sent)) {
    problems.push(...(c.checkRequestBody({ method, path: parsed.pathname, body: sent }) ?? []));
  }
  if (problems.length) {
    throw new Error(
      `The answer to ${method} ${parsed.pathname} disagrees with /v1/openapi.json:\n  ${problems.join("\n  ")}\n  body: ${body.slice(0, 500)}`,
    );
  }
}

type Options = { data?: unknown; method?: string } | undefined;

/** An APIRequestContext whose every answer is checked against the document. */
export function checkedContext(context: APIRequestContext): APIRequestContext {
  const wrap =
    (name: "get" | "post" | "put" | "patch" | "delete" | "head" | "fetch", fixedMethod: string | null) =>
    async (url: Parameters<APIRequestContext["get"]>[0], options?: Options): Promise<APIResponse> => {
      const response = await (context[name] as (u: typeof url, o?: Options) => Promise<APIResponse>)(url, options);
      const method = (fixedMethod ?? options?.method ?? "GET").toUpperCase();
      await check(
        method,
        response.url(),
        response.status(),
        response.headers()["content-type"] ?? null,
        () => response.text(),
        options?.data,
      );
      return response;
    };
  const methods = {
    get: wrap("get", "GET"),
    post: wrap("post", "POST"),
    put: wrap("put", "PUT"),
    patch: wrap("patch", "PATCH"),
    delete: wrap("delete", "DELETE"),
    head: wrap("head", "HEAD"),
    fetch: wrap("fetch", null),
  };
  return new Proxy(context, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && prop in methods) return methods[prop as keyof typeof methods];
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export const test = base.extend<object, { checkedFetch: void }>({
  request: async ({ request }, use) => {
    await use(checkedContext(request));
  },
  // Raw fetch (streams, hand-built requests) is checked too; an event stream's body is left alone.
  checkedFetch: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's needs from this pattern: none.
    async ({}, use) => {
      const original = globalThis.fetch;
      globalThis.fetch = async (input, init) => {
        const response = await original(input, init);
        const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
        const contentType = response.headers.get("content-type");
        const sent =
          typeof init?.body === "string" && isJson(new Headers(init.headers).get("content-type"))
            ? safeParse(init.body)
            : undefined;
        await check(method, response.url, response.status, contentType, () => response.clone().text(), sent);
        return response;
      };
      await use();
      globalThis.fetch = original;
    },
    { scope: "worker", auto: true },
  ],
});

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
