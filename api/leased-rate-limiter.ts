// Rate limits shared through PostgreSQL without a write per request: a process leases a slice of
// a key's (or an IP's) budget for the current window in one short transaction on the shared
// `rate_limits` row, then spends it in memory. Slices shrink as the window's budget runs out, so
// the processes drain it together; the total let through in a window is never more than the
// limit, and once every process has spent what it leased, exactly the limit. A process that saw
// the budget run out refuses without asking again until the window ends.
import type pg from "pg";
import { RateLimiterRes } from "rate-limiter-flexible";

export interface ConsumingLimiter {
  /** Resolves with what is left, or rejects with a RateLimiterRes when the budget is spent. */
  consume(key: string): Promise<RateLimiterRes>;
}

interface Lease {
  /** When the window ends (ms since the epoch), as the shared row says. */
  expire: number;
  /** Points leased and not yet spent here. */
  left: number;
  /** Points nobody had leased at the last lease. */
  unleased: number;
}

/** A slice of the budget: a twentieth of it, a quarter of what is unleased near the end, at least 1. */
export function leaseSize(limit: number, unleased: number): number {
  return Math.max(1, Math.min(Math.ceil(limit / 20), Math.floor(unleased / 4)));
}

/** Leases kept past this many: the windows that ended are swept. */
const SWEEP_ABOVE = 10_000;

export function leasedRateLimiter(options: {
  pool: pg.Pool;
  points: number;
  durationSeconds: number;
  keyPrefix: string;
}): ConsumingLimiter & { leasesTaken(): number } {
  const { pool, points: limit, keyPrefix } = options;
  const durationMs = options.durationSeconds * 1000;
  const leases = new Map<string, Lease>();
  const taking = new Map<string, Promise<void>>();
  let taken = 0;

  /** One transaction: (re)open the window if it ended, lease a slice of what is unleased. */
  const lease = async (key: string): Promise<void> => {
    const row = `${keyPrefix}:${key}`;
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const now = Date.now();
      await client.query(
        "INSERT INTO rate_limits (key, points, expire) VALUES ($1, 0, $2) ON CONFLICT (key) DO NOTHING",
        [row, now + durationMs],
      );
      const { rows } = await client.query<{ points: number; expire: string | null }>(
        "SELECT points, expire FROM rate_limits WHERE key = $1 FOR UPDATE",
        [row],
      );
      let used = Number(rows[0]?.points ?? 0);
      let expire = Number(rows[0]?.expire ?? 0);
      if (expire <= now) {
        used = 0;
        expire = now + durationMs;
      }
      const unleased = Math.max(0, limit - used);
      const granted = unleased === 0 ? 0 : Math.min(unleased, leaseSize(limit, unleased));
      await client.query("UPDATE rate_limits SET points = $2, expire = $3 WHERE key = $1", [
        row,
        used + granted,
        expire,
      ]);
      await client.query("COMMIT");
      taken += 1;
      leases.set(key, { expire, left: granted, unleased: unleased - granted });
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };

  const sweep = (now: number) => {
    if (leases.size <= SWEEP_ABOVE) return;
    for (const [key, l] of leases) if (l.expire <= now) leases.delete(key);
  };

  return {
    async consume(key) {
      for (;;) {
        const now = Date.now();
        const held = leases.get(key);
        if (held && held.expire > now) {
          if (held.left > 0) {
            held.left -= 1;
            const remaining = held.unleased + held.left;
            return new RateLimiterRes(remaining, held.expire - now, limit - remaining, false);
          }
          // Spent here, and nothing was left to lease: spent everywhere until the window ends.
          if (held.unleased === 0) throw new RateLimiterRes(0, held.expire - now, limit + 1, false);
        }
        // One lease at a time per key in this process; the others wait for it.
        let pending = taking.get(key);
        if (!pending) {
          pending = lease(key).finally(() => taking.delete(key));
          taking.set(key, pending);
          sweep(now);
        }
        await pending;
      }
    },
    leasesTaken: () => taken,
  };
}
