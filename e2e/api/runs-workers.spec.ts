// Worker processes (`npm run worker` = bin/worker.ts) on the same store as a server that runs
// nothing itself (WORKER_CONCURRENCY=0): a worker killed with SIGKILL mid-run leaves a run whose
// lease lapses (15 s) and another worker re-runs it, charged once; two workers share one queue;
// a Prefer: wait read is woken by a run another process finished. Only this file uses the
// "workers" servers, and starts them; its tests run one after another, so no other worker takes
// these runs.
import { expect, test } from "./fixtures";
import { expectOk } from "./helpers";
import {
  expectBlobLink,
  expectLedgerIdentity,
  micros,
  newTenant,
  pngSize,
  settle,
  startWorker,
  stopWorker,
  STORES,
  storeTitle,
  type Batch,
  type Generation,
  type WorkerProcess,
} from "./runs-helpers";
import { serversOfThisFile } from "./server-start";

const HEAVY = {
  model: "atelier/gradient",
  input: { prompt: "storm over the bay at night", num_images: 4, resolution: "hd" },
};

serversOfThisFile(...STORES.map((store) => store.workers));

for (const store of STORES) {
  test.describe(`[${storeTitle(store)}] worker processes`, () => {
    const started: WorkerProcess[] = [];
    test.afterEach(async () => {
      // Never leave a worker of ours running into the next test.
      for (const worker of started.splice(0)) await stopWorker(worker, "SIGKILL");
    });

    test("a worker killed with SIGKILL mid-run: the run is re-run by another worker and charged once", async ({
      request,
    }) => {
      test.setTimeout(150_000);
      const tenant = newTenant(request, store.workers, "5");
      const { api } = tenant;
      // Enough back-to-back work that the worker is caught inside a run.
      const created: Generation[] = [];
      for (let i = 0; i < 12; i++)
        created.push((await api.create({ ...HEAVY, input: { ...HEAVY.input, seed: i } })).gen);
      for (const run of created) expect(run.status).toBe("queued");
      // Nothing runs without a worker.
      expect((await api.list({ status: "queued" })).data).toHaveLength(12);

      // Start a worker, wait until it holds a run, and kill it there. Should the kill land
      // between two runs (no run left "running"), start another and try again.
      const orphans: Generation[] = [];
      for (let attempt = 0; attempt < 5 && orphans.length === 0; attempt++) {
        const worker = startWorker(store.workers, 1);
        started.push(worker);
        const deadline = Date.now() + 30_000;
        let running: Generation[] = [];
        while (running.length === 0) {
          expect(Date.now(), `no run started within 30 s; worker stderr: ${worker.stderr()}`).toBeLessThan(deadline);
          running = (await api.list({ status: "running" })).data;
        }
        worker.child.kill("SIGKILL");
        const exit = await worker.exited;
        expect(exit.signal).toBe("SIGKILL");
        // The worker is gone: whatever is still "running" now is an orphan no process runs.
        orphans.push(...(await api.list({ status: "running" })).data);
        if ((await api.list({ status: "queued" })).data.length === 0) break;
      }
      expect(orphans.length, "a run was caught running when its worker was killed").toBeGreaterThan(0);
      for (const orphan of orphans) {
        expect(orphan.provider).toEqual(expect.any(String));
        expect(orphan.started_at).not.toBeNull();
        expect(orphan.completed_at).toBeNull();
        expect(orphan.usage.cost_usd).toBeNull();
      }
      // While nobody runs it the orphan holds its price, charged nothing.
      await expectLedgerIdentity(tenant);

      // A second worker finishes the queue and, once the lease lapses, the orphan.
      const rescuer = startWorker(store.workers, 1);
      started.push(rescuer);
      for (const orphan of orphans) {
        const done = await api.waitFinal(orphan.id, 90);
        expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
        expect(done.output).toHaveLength(4);
        expect(micros(done.usage.cost_usd)).toBe(16_000);
      }
      const runs = await settle(api, 90);
      expect(runs).toHaveLength(12);
      for (const run of runs) {
        expect(run.status, `${run.id}: ${JSON.stringify(run.error)}`).toBe("succeeded");
        expect(micros(run.usage.cost_usd)).toBe(16_000);
      }
      // Charged once each: 12 × 0.016, nothing held.
      expect(await api.credits()).toEqual({ available: 5_000_000 - 12 * 16_000, held: 0 });
      await expectLedgerIdentity(tenant);
    });

    test("cancel a running run: 200 canceled, hold released; the result the worker still makes is thrown away", async ({
      request,
    }) => {
      test.setTimeout(90_000);
      const tenant = newTenant(request, store.workers, "5");
      const { api } = tenant;
      for (let i = 0; i < 12; i++) await api.create({ ...HEAVY, input: { ...HEAVY.input, seed: 100 + i } });
      started.push(startWorker(store.workers, 1));
      // Catch a run while it runs and cancel it; should it end first (cancel answers it as it
      // is, succeeded), catch the next one.
      let canceled: Generation | null = null;
      const deadline = Date.now() + 45_000;
      while (!canceled) {
        expect(Date.now(), "caught a running run and canceled it").toBeLessThan(deadline);
        const [running] = (await api.list({ status: "running", limit: "1" })).data;
        if (!running) {
          if ((await api.list({ status: "queued", limit: "1" })).data.length === 0) break;
          continue;
        }
        const answer = await expectOk<Generation>(await api.post(`/v1/generations/${running.id}/cancel`));
        if (answer.status === "canceled") canceled = answer;
        else expect(answer.status).toBe("succeeded");
      }
      expect(canceled, "a run was canceled while running").not.toBeNull();
      // It had started (provider set, started_at set) and ended now.
      expect(canceled!.provider).toEqual(expect.any(String));
      expect(canceled!.started_at).not.toBeNull();
      expect(canceled!.completed_at).not.toBeNull();
      expect(canceled!.usage.cost_usd).toBeNull();

      const runs = await settle(api, 60);
      const after = runs.find((r) => r.id === canceled!.id)!;
      expect(after.status).toBe("canceled");
      expect(after.output).toEqual([]);
      expect(after.usage.cost_usd).toBeNull();
      expect(after.completed_at).toBe(canceled!.completed_at);
      const succeeded = runs.filter((r) => r.status === "succeeded");
      expect(succeeded.length + runs.filter((r) => r.status === "canceled").length).toBe(12);
      expect(await api.credits()).toEqual({ available: 5_000_000 - succeeded.length * 16_000, held: 0 });
      await expectLedgerIdentity(tenant);
    });

    test("a worker stopped with SIGTERM leaves no run behind as running", async ({ request }) => {
      test.setTimeout(90_000);
      const tenant = newTenant(request, store.workers, "5");
      const { api } = tenant;
      for (let i = 0; i < 12; i++) await api.create({ ...HEAVY, input: { ...HEAVY.input, seed: 200 + i } });
      const worker = startWorker(store.workers, 1);
      started.push(worker);
      const deadline = Date.now() + 30_000;
      while ((await api.list({ status: "running,succeeded", limit: "1" })).data.length === 0) {
        expect(Date.now(), `no run started within 30 s; worker stderr: ${worker.stderr()}`).toBeLessThan(deadline);
      }
      worker.child.kill("SIGTERM");
      const exit = await worker.exited;
      expect(exit.code, worker.stderr()).toBe(0);
      // Finished or given back to the queue: nothing waits for a lease to lapse.
      expect((await api.list({ status: "running" })).data).toEqual([]);
      await expectLedgerIdentity(tenant);
      started.push(startWorker(store.workers, 2));
      const runs = await settle(api, 60);
      for (const run of runs) expect(run.status).toBe("succeeded");
      expect(await api.credits()).toEqual({ available: 5_000_000 - 12 * 16_000, held: 0 });
      await expectLedgerIdentity(tenant);
    });

    test("two worker processes share one queue: every run ends succeeded and is charged once", async ({ request }) => {
      test.setTimeout(90_000);
      const tenant = newTenant(request, store.workers, "2");
      const { api } = tenant;
      const batch = await expectOk<Batch>(
        await api.post("/v1/batches", {
          requests: Array.from({ length: 30 }, (_, i) => ({
            model: "atelier/gradient",
            input: { prompt: `shared queue ${i}`, num_images: 2 },
          })),
        }),
        201,
      );
      started.push(startWorker(store.workers, 2), startWorker(store.workers, 2));
      const runs = await settle(api, 60);
      expect(runs).toHaveLength(30);
      for (const run of runs) {
        expect(run.status).toBe("succeeded");
        expect(micros(run.usage.cost_usd)).toBe(4_000);
        expect(run.batch_id).toBe(batch.id);
      }
      expect(await api.credits()).toEqual({ available: 2_000_000 - 30 * 4_000, held: 0 });
      // The workers wrote the outputs into the store's blobs (the bucket on PostgreSQL): the links
      // the server hands out lead to them.
      const sample = await api.read(runs[0]!.id);
      const readAt = Date.now();
      expect(sample.output).toHaveLength(2);
      for (const item of sample.output) {
        expectBlobLink(store.workers, item, { contentType: "image/png", readAt });
        const res = await request.get(item.url);
        expect(res.status()).toBe(200);
        expect(pngSize(await res.body())).toEqual({ width: item.width, height: item.height });
      }
      await expectLedgerIdentity(tenant);
    });

    test("Prefer: wait on a read is woken by a run that another process finishes", async ({ request }) => {
      test.setTimeout(120_000);
      const tenant = newTenant(request, store.workers, "1");
      const { api } = tenant;
      const { gen } = await api.create({ model: "atelier/gradient", input: { prompt: "woken" } });
      expect(gen.status).toBe("queued");

      const asked = Date.now();
      const waiting = api.get(`/v1/generations/${gen.id}`, { prefer: "wait=60" });
      // Let the read start waiting (it is then holding the answer; nothing can run the run yet).
      const still = await api.read(gen.id);
      expect(still.status).toBe("queued");
      started.push(startWorker(store.workers, 1));
      const res = await waiting;
      const answered = Date.now();
      const body = await expectOk<Generation>(res);
      expect(body.status).toBe("succeeded");
      expect(res.headers()["preference-applied"]).toBe("wait=60");
      expect(res.headers()["retry-after"]).toBeUndefined();
      // Woken by the finish, not by the end of its 60 s: a read that timed out would answer
      // 60 s after it was asked. The bound is far from both outcomes (a worker starts in ~2 s).
      expect(answered - asked, "the read was woken well before its 60 s ran out").toBeLessThan(45_000);
      // And it really was held across the finish: the run ended after the read was asked.
      expect(Date.parse(body.completed_at!)).toBeGreaterThan(asked);
      await expectLedgerIdentity(tenant);
    });
  });
}
