// "Test the connection" for one provider (the ops Providers page, issue 37): one cheap call that
// lists or reads something at the provider (its adapter's checkConnection: an account, system
// stats, a model list; never a generation), within the provider's timeout_ms. What went wrong is
// told in the words a run would get (a refused key says so, without the key; unreachable, no
// answer, 5xx are outages), as an answer, never thrown: the operator reads it on the page.
import { providerKind } from "./kinds";
import { scrub } from "./common/provider-failures";
import { ProviderError, type ProviderAdapter, type ProviderConfig } from "./common/types";

export type ConnectionCheck =
  { ok: true; latency_ms: number; detail: string } | { ok: false; latency_ms: number; error: string };

export interface ConnectionCheckOptions {
  /**
   * The adapter to check with. Default: a new one of the provider's kind, so the check marks no
   * running provider down; given the serving adapter, a failed check counts as a run's would.
   */
  adapter?: ProviderAdapter;
  /** Ends the check early (the operator left the page); its reason is thrown. */
  signal?: AbortSignal;
}

export async function checkProviderConnection(
  config: ProviderConfig,
  options: ConnectionCheckOptions = {},
): Promise<ConnectionCheck> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const signal = options.signal ?? new AbortController().signal;
  let adapter: ProviderAdapter;
  try {
    adapter = options.adapter ?? providerKind(config.kind).createAdapter(config);
  } catch (err) {
    return {
      ok: false,
      latency_ms: latency(),
      error: scrub(`The provider ${config.id} is not usable: ${String((err as Error)?.message ?? err)}`, config.apiKey),
    };
  }
  if (!adapter.checkConnection) {
    return {
      ok: false,
      latency_ms: latency(),
      error: `The provider ${config.id} (kind "${config.kind}") has no connection check: Atelier knows no free read of its API, so its key is checked on its first run.`,
    };
  }
  try {
    const detail = await adapter.checkConnection(signal);
    return { ok: true, latency_ms: latency(), detail: scrub(detail, config.apiKey) };
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (err instanceof ProviderError)
      return { ok: false, latency_ms: latency(), error: scrub(err.message, config.apiKey) };
    throw err;
  }
}
