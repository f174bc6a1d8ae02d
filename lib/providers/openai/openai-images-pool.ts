// An openai-images provider over a `pool` of OpenAI-compatible servers (issue 38). These servers
// expose no queue, so each call goes to the server in service with the fewest calls of ours in
// flight, never more than its `max_running`: a run waits in Atelier for a free slot (before its
// cancel point, so a cancel meanwhile cancels it). Each server is its own AI SDK adapter (its own
// health, by ai-sdk-errors.ts's rules): a call that takes its server out of service (unreachable,
// no answer within timeout_ms, 5xx, 429, 401) is tried again on another server, since nothing was
// made; a refusal (400) fails the run as it is. The provider is down only while every server is.
// The shared parts (the `pool` field, health, the choice, slots, the check) are server-pool.ts's.
import { ServerPool, type PoolMember, type PoolServer } from "../common/server-pool";
import { ProviderError, type ProviderAdapter, type ProviderConfig, type ProviderRequest } from "../common/types";

interface Server extends PoolMember {
  /** The AI SDK adapter speaking to this server; its health is the server's. */
  adapter: ProviderAdapter;
  /** Calls of ours sent to it or holding a slot there. */
  running: number;
}

/** The adapter over `servers`; `adapterFor` makes one server's AI SDK adapter. */
export function openAiImagesPool(
  config: ProviderConfig,
  servers: readonly PoolServer[],
  adapterFor: (baseUrl: string) => ProviderAdapter,
): ProviderAdapter {
  const pool = new ServerPool<Server>(
    servers.map((s, index) => {
      const adapter = adapterFor(s.baseUrl);
      return { index, adapter, health: adapter.health, maxRunning: s.maxRunning, running: 0 };
    }),
    { noun: "server", nouns: "servers", inFlight: (server) => server.running },
  );
  /** The slot prepareRequest took for a run, by the request it answered: submit calls there. */
  const held = new WeakMap<ProviderRequest, Server>();

  const take = (server: Server) => void server.running++;
  function release(server: Server): void {
    server.running--;
    pool.wake();
  }

  function noServer(): ProviderError {
    pool.settle();
    return new ProviderError(
      `The provider ${config.id} has no server in service: each stopped answering a moment ago. Try again later.`,
      true,
    );
  }

  return {
    billsOnSubmit: true,
    health: pool.health,
    // The wait for a slot comes before the run's cancel point: a cancel meanwhile ends it.
    async prepareRequest(request, signal) {
      const server = await pool.slot(new Set(), signal, take);
      if (!server) throw noServer();
      held.set(request, server);
      return request;
    },
    abandon(request) {
      const server = held.get(request);
      held.delete(request);
      if (server) release(server);
    },
    async submit(request, signal) {
      let server = held.get(request) ?? (await pool.slot(new Set(), signal, take));
      held.delete(request);
      if (!server) throw noServer();
      const exclude = new Set<Server>();
      for (;;) {
        const at = server;
        let failure: unknown;
        try {
          const result = await pool.on(at, () => at.adapter.submit(request, signal));
          pool.answered(at);
          return result;
        } catch (err) {
          if (!pool.failed(err, at) || signal.aborted) throw err;
          failure = err;
        } finally {
          release(at);
        }
        // The server is out of service alone; nothing was made there: another takes the call.
        exclude.add(at);
        server = await pool.slot(exclude, signal, take);
        if (!server) throw failure;
      }
    },
    async poll(job) {
      throw new Error(`openai-images calls answer in one request; there is no job ${job.id} to poll`);
    },
    checkConnection: (signal) => pool.checkEach((server) => server.adapter.checkConnection!(signal), signal),
  };
}
