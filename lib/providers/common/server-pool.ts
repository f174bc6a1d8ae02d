// What every provider kind that spreads its runs over a `pool` of servers shares (issue 38):
// ComfyUI boxes (comfyui-pool.ts) and OpenAI-compatible image servers (openai-images-pool.ts).
//   - the providers file's `pool`: 1–64 `{base_url, max_running?}`, each URL once;
//   - each server's own health: one that stops answering is out of service alone for a while
//     (its failure's health rules), and the provider is down only while every server is;
//   - the choice of a server: in service, under its `max_running` if any is, the least work;
//   - slots (for servers without a queue of their own): a call waits for a server under its
//     `max_running`, abortable;
//   - the connection check of every server.
// What "work" is and how a call or job runs on a server is the kind's.
import { createHealth, isDown, markUp } from "./health";
import { arrayAt, fail, integerAt, objectAt, parseBaseUrl, stringAt, type JsonObject } from "./json-fields";
import { ProviderError, type ProviderHealth } from "./types";

export const MAX_POOL_SERVERS = 64;
export const MAX_RUNNING = 64;

/** One `pool` item, parsed. */
export interface PoolServer {
  baseUrl: string;
  /** This process's runs the server may hold at once (how the kind holds it to that is the kind's). */
  maxRunning: number;
}

/**
 * `pool`: 1–64 `{base_url, max_running?}` (max_running 1–64, default 1), each base_url once;
 * base_url, when also given, must be the first server's. Without `pool`, base_url is required.
 * `words` are the kind's: what base_url is ("the ComfyUI server"), what a pool item is ("box").
 */
export function parsePool(
  provider: JsonObject,
  path: string,
  words: { baseUrl: string; noun: string },
): { pool?: PoolServer[] } {
  if (provider.pool === undefined) {
    if (provider.base_url === undefined)
      fail(`${path}.base_url`, `is required (${words.baseUrl}), unless pool lists the servers.`);
    return {};
  }
  const seen = new Map<string, number>();
  const pool = arrayAt(provider.pool, `${path}.pool`, { min: 1, max: MAX_POOL_SERVERS }).map((value, i) => {
    const at = `${path}.pool[${i}]`;
    const item = objectAt(value, at, ["base_url", "max_running"]);
    const raw = stringAt(item, "base_url", at);
    if (raw.includes("\u0000")) fail(`${at}.base_url`, "must not contain a NUL character (\\u0000).");
    const baseUrl = parseBaseUrl(raw, `${at}.base_url`);
    const before = seen.get(baseUrl);
    if (before !== undefined)
      fail(
        `${at}.base_url`,
        `repeats pool[${before}]'s (${baseUrl}); list each server once (raise its max_running instead).`,
      );
    seen.set(baseUrl, i);
    return { baseUrl, maxRunning: integerAt(item, "max_running", at, { fallback: 1, min: 1, max: MAX_RUNNING }) };
  });
  // base_url may stay (tools that show one URL read it) but must not name another server.
  if (provider.base_url !== undefined && String(provider.base_url).replace(/\/+$/, "") !== pool[0]!.baseUrl)
    fail(`${path}.base_url`, `must be left out or be the first ${words.noun} of pool (${pool[0]!.baseUrl}).`);
  return { pool };
}

/** One server of a pool as the shared part sees it; the kind's own member type extends it. */
export interface PoolMember {
  /** Its place in `pool` (0-based; messages say index + 1). */
  readonly index: number;
  /** Its own health: its failures take it (alone) out of service. */
  readonly health: ProviderHealth;
  readonly maxRunning: number;
}

export interface PoolOptions<M extends PoolMember> {
  /** What the kind calls a server in messages: "box", "server"; and several: "boxes", "servers". */
  noun: string;
  nouns: string;
  /** This process's calls or jobs on the server now (what max_running limits). */
  inFlight(member: M): number;
}

/** A member chosen for a call, with what the kind measured of its work. */
export interface MemberLoad<M> {
  member: M;
  work: number;
}

/**
 * The servers of one provider, their health and the provider's. `health` is the provider's: down
 * only while every member is (settle), up again at any member's good answer (answered).
 */
export class ServerPool<M extends PoolMember> {
  readonly health: ProviderHealth = createHealth();
  /** Wakes callers waiting for a slot (release, or a member back in service by a good answer). */
  private waiters = new Set<() => void>();

  constructor(
    readonly members: readonly M[],
    private readonly options: PoolOptions<M>,
  ) {}

  inService(member: M): boolean {
    return !isDown(member.health);
  }

  inFlight(member: M): number {
    return this.options.inFlight(member);
  }

  /** After a member failed: the provider is down, until the first member is back, once every member is out. */
  settle(): void {
    if (this.members.some((m) => this.inService(m))) return;
    const last = this.members
      .map((member) => ({ member, failure: member.health.lastFailure }))
      .filter((m) => m.failure)
      .sort((a, b) => b.failure!.at.localeCompare(a.failure!.at))[0];
    const message = last?.failure?.message ?? `no ${this.options.noun} answers`;
    const { noun } = this.options;
    this.health.lastFailure = {
      at: last?.failure?.at ?? new Date().toISOString(),
      message:
        this.members.length === 1 || !last
          ? message
          : `every ${noun} is out of service; ${noun} ${last.member.index + 1}: ${message}`,
    };
    this.health.downUntil = Math.min(...this.members.map((m) => m.health.downUntil ?? Date.now()));
  }

  /** The member answered well: it, and so the provider, is in service. */
  answered(member: M): void {
    markUp(member.health);
    markUp(this.health);
    this.wake();
  }

  /** Runs `fn` on the member; a failure that took it out of service may take the provider out too. */
  async on<T>(member: M, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } finally {
      if (!this.inService(member)) this.settle();
    }
  }

  /** The error took the member out of service (it stopped answering), rather than refusing this call. */
  failed(err: unknown, member: M): boolean {
    return err instanceof ProviderError && err.transient && !this.inService(member);
  }

  /**
   * The members a new call may go to: in service and not in `exclude`. Every member out, yet the
   * provider up: an operator's passed connection check ended the outage, so each may be tried.
   */
  candidates(exclude: ReadonlySet<M> = new Set()): M[] {
    const open = this.members.filter((m) => !exclude.has(m) && this.inService(m));
    if (open.length > 0 || isDown(this.health)) return open;
    return this.members.filter((m) => !exclude.has(m));
  }

  /** The member with the least work, preferring those under their max_running; ties: fewer in flight, then pool order. */
  leastWork(loads: ReadonlyArray<MemberLoad<M>>): M | null {
    const open = loads.filter((load) => this.inFlight(load.member) < load.member.maxRunning);
    const ranked = [...(open.length > 0 ? open : loads)].sort(
      (a, b) => a.work - b.work || this.inFlight(a.member) - this.inFlight(b.member) || a.member.index - b.member.index,
    );
    return ranked[0]?.member ?? null;
  }

  /**
   * A slot on a member for one call, for servers without a queue of their own: a candidate under
   * its max_running with the fewest calls in flight, `take` counting the call there at once.
   * Waits while every candidate is full (until a release, or `signal`'s abort, which throws its
   * reason); null when no member is a candidate (each out of service, or excluded).
   */
  async slot(exclude: ReadonlySet<M>, signal: AbortSignal, take: (member: M) => void): Promise<M | null> {
    for (;;) {
      signal.throwIfAborted();
      const candidates = this.candidates(exclude);
      if (candidates.length === 0) return null;
      const free = candidates.filter((m) => this.inFlight(m) < m.maxRunning);
      if (free.length > 0) {
        const member = this.leastWork(free.map((m) => ({ member: m, work: this.inFlight(m) })))!;
        take(member);
        return member;
      }
      await this.change(signal);
    }
  }

  /** A slot was given back: callers waiting for one look again. */
  wake(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const waiter of waiters) waiter();
  }

  private change(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        signal.removeEventListener("abort", aborted);
        resolve();
      };
      const aborted = () => {
        this.waiters.delete(done);
        reject(signal.reason);
      };
      this.waiters.add(done);
      signal.addEventListener("abort", aborted, { once: true });
    });
  }

  /**
   * The connection check of a pool: every member read (`read`, under the pool's health rules); one
   * member alone answers its own words. Passes while one member answers ("2 of 3 servers answer: …"),
   * which ends the provider's outage; fails with the first member's failure when none does.
   */
  async checkEach(read: (member: M) => Promise<string>, signal: AbortSignal): Promise<string> {
    if (this.members.length === 1) {
      const [member] = this.members as [M];
      const detail = await this.on(member, () => read(member));
      this.answered(member);
      return detail;
    }
    const reads = await Promise.allSettled(this.members.map((m) => this.on(m, () => read(m))));
    signal.throwIfAborted();
    const up = reads.filter((r) => r.status === "fulfilled").length;
    if (up === 0) throw (reads[0] as PromiseRejectedResult).reason;
    markUp(this.health);
    const { noun } = this.options;
    const parts = reads.map((r, i) => {
      const member = this.members[i]!;
      if (r.status === "fulfilled") {
        markUp(member.health);
        return `${noun} ${i + 1} (${r.value})`;
      }
      const failure = member.health.lastFailure?.message ?? (r.reason as Error)?.message;
      return `${noun} ${i + 1} does not answer (${failure})`;
    });
    this.wake();
    return `${up} of ${this.members.length} ${this.options.nouns} answer: ${parts.join("; ")}`;
  }
}
