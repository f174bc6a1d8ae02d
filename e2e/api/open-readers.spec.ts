// The cap on what one API key holds open (docs/api.md, "Limits"): status streams and Prefer: wait reads
// together, 25 at once per key. The 26th answers 429 rate_limit_exceeded with Retry-After and
// starts nothing; closing a stream or dropping a wait gives its slot back. On the idle servers,
// where runs stay queued, so every stream and wait stays open until the test ends it.
import { expect, test } from "./fixtures";
import { createKey } from "./admin";
import { expectError, expectOk } from "./helpers";
import { Api, newTenant, STORES, storeTitle, type Generation, type Tenant } from "./runs-helpers";
import { openEventStream, type EventStream } from "./sse";

const CAP = 25;
const BODY = { model: "atelier/gradient", input: { prompt: "held open" } };

async function queuedRun(tenant: Tenant): Promise<Generation> {
  const { gen } = await tenant.api.create(BODY);
  expect(gen.status).toBe("queued");
  return gen;
}

async function openStream(api: Api, id: string): Promise<EventStream> {
  const stream = await openEventStream(api.url(`/v1/generations/${id}`), api.headers(), 90);
  expect(stream.response.status, "a stream within the cap opens").toBe(200);
  expect((await stream.next())?.event).toBe("generation");
  return stream;
}

/** A Prefer: wait read left in flight; `drop` ends it from the client's side. */
function waitInFlight(api: Api, id: string): { answered: Promise<Response | null>; drop: () => void } {
  const abort = new AbortController();
  const answered = fetch(api.url(`/v1/generations/${id}`), {
    headers: api.headers({ prefer: "wait=60" }),
    signal: abort.signal,
  }).catch(() => null);
  return { answered, drop: () => abort.abort() };
}

/** Retries `attempt` until it gives something: the server notices a closed connection a moment later. */
async function eventually<T>(attempt: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 50; i++) {
    const got = await attempt();
    if (got !== null) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not within the retries`);
}

/** A stream if the key has room for one now, else null (after checking the refusal is the cap's). */
async function tryStream(api: Api, id: string): Promise<EventStream | null> {
  const stream = await openEventStream(api.url(`/v1/generations/${id}`), api.headers(), 90);
  if (stream.response.status === 200) return stream;
  expect(stream.response.status).toBe(429);
  stream.close();
  return null;
}

/**
 * Whether the key is at its cap, asked with a one-second Prefer: wait read: it holds a slot only
 * while it runs and gives it back before answering, so asking leaves nothing behind.
 */
async function atCap(api: Api, id: string): Promise<boolean> {
  const res = await api.get(`/v1/generations/${id}`, { prefer: "wait=1" });
  expect([200, 429]).toContain(res.status());
  return res.status() === 429;
}

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] open readers per API key`, () => {
    test("the 26th status stream gets 429 with Retry-After; closing one lets a new one in", async ({ request }) => {
      const tenant = newTenant(request, store.idle, "1");
      const gen = await queuedRun(tenant);
      const streams = await Promise.all(Array.from({ length: CAP }, () => openStream(tenant.api, gen.id)));
      try {
        const refused = await tenant.api.get(`/v1/generations/${gen.id}`, { accept: "text/event-stream" });
        const error = await expectError(refused, 429, "rate_limit_exceeded", {
          message: /already has 25 status streams and Prefer: wait reads open; close one/,
        });
        expect(error.type).toBe("rate_limit_error");
        expect(refused.headers()["retry-after"]).toBe("5");
        // A Prefer: wait read shares the cap; a POST with Prefer: wait starts no run.
        await expectError(
          await tenant.api.get(`/v1/generations/${gen.id}`, { prefer: "wait=5" }),
          429,
          "rate_limit_exceeded",
        );
        await expectError(
          await tenant.api.post("/v1/generations", BODY, { prefer: "wait=5" }),
          429,
          "rate_limit_exceeded",
        );
        expect((await tenant.api.listAll()).map((g) => g.id)).toEqual([gen.id]);
        // Reads without a wait are not held open: they still answer.
        await expectOk(await tenant.api.get(`/v1/generations/${gen.id}`));
        // Another key of the same workspace has its own slots.
        const other = new Api(request, store.idle, createKey(tenant.workspaceId, {}, store.idle).key);
        (await openStream(other, gen.id)).close();

        streams.pop()!.close();
        streams.push(await eventually(() => tryStream(tenant.api, gen.id), "a stream after one was closed"));
      } finally {
        for (const s of streams) s.close();
      }
      // Every slot comes back once the streams are closed.
      const reopened: EventStream[] = [];
      while (reopened.length < CAP)
        reopened.push(
          await eventually(() => tryStream(tenant.api, gen.id), `stream ${reopened.length + 1} after all were closed`),
        );
      reopened.forEach((s) => s.close());
      await expectOk(await tenant.api.post(`/v1/generations/${gen.id}/cancel`));
    });

    test("Prefer: wait reads share the cap until they answer or the client leaves; a run's end frees every slot", async ({
      request,
    }) => {
      const tenant = newTenant(request, store.idle, "1");
      const gen = await queuedRun(tenant);
      const streams = await Promise.all(Array.from({ length: CAP - 1 }, () => openStream(tenant.api, gen.id)));
      try {
        const first = waitInFlight(tenant.api, gen.id);
        await eventually(
          async () => ((await atCap(tenant.api, gen.id)) ? true : null),
          "the wait holding the 25th slot",
        );
        const refused = await tenant.api.get(`/v1/generations/${gen.id}`, { accept: "text/event-stream" });
        await expectError(refused, 429, "rate_limit_exceeded");
        expect(refused.headers()["retry-after"]).toBe("5");

        // A client that drops its wait gives the slot back long before the wait's 60 s.
        first.drop();
        streams.push(await eventually(() => tryStream(tenant.api, gen.id), "a stream after the wait was dropped"));

        // A wait that ends (the run is canceled) gives its slot back, and so do the streams, which end with the run.
        streams.pop()!.close();
        await eventually(async () => ((await atCap(tenant.api, gen.id)) ? null : true), "the closed stream's slot");
        const second = waitInFlight(tenant.api, gen.id);
        await eventually(async () => ((await atCap(tenant.api, gen.id)) ? true : null), "the second wait");
        await expectOk(await tenant.api.post(`/v1/generations/${gen.id}/cancel`));
        expect((await second.answered)?.status).toBe(200);
        for (const s of streams) expect((await s.readToEnd()).at(-1)?.data).toContain('"canceled"');
      } finally {
        streams.forEach((s) => s.close());
      }
      const next = await queuedRun(tenant);
      const reopened = await Promise.all(
        Array.from({ length: CAP }, () =>
          openEventStream(tenant.api.url(`/v1/generations/${next.id}`), tenant.api.headers(), 90),
        ),
      );
      expect(reopened.map((s) => s.response.status)).toEqual(Array(CAP).fill(200));
      reopened.forEach((s) => s.close());
      await expectOk(await tenant.api.post(`/v1/generations/${next.id}/cancel`));
    });
  });
}
