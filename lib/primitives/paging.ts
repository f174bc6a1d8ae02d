// Keyset paging, newest first on (created_at, id), shared by every list: stable while new rows
// are being added, since they sort before the cursor.
import type { ExpressionBuilder } from "kysely";
import { decodeCursor, encodeCursor, type CursorPosition } from "./cursor";
import { ApiError } from "./errors";
import { LIMITS } from "./limits";

export function parseLimit(value: string | undefined): number {
  if (value === undefined) return LIMITS.pageSize.default;
  const { min, max } = LIMITS.pageSize;
  if (!/^\d{1,3}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ApiError(
      "invalid_parameter",
      `limit is a whole number from ${min} to ${max}; got "${value.slice(0, 20)}".`,
      { param: "limit" },
    );
  }
  return Number(value);
}

/**
 * The WHERE that keeps rows strictly after the cursor's position: a row-value comparison, which
 * both stores read as a range of a (…, created_at, id) index, so a page at any depth is a seek.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function afterPosition(eb: ExpressionBuilder<any, any>, after: CursorPosition) {
  return eb(eb.refTuple("created_at", "id"), "<", eb.tuple(after.t, after.i));
}

export interface Page<R> {
  rows: R[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * A page read within a bound: the rows found, and where the read stopped when it reached its
 * bound before finding a full page (the next page goes on from there), else null.
 */
export interface BoundedRows<R> {
  rows: R[];
  stoppedAt: CursorPosition | null;
}

/**
 * Runs `fetch` for one page (asking for one row more than the limit to learn has_more) and
 * makes the next cursor, bound to `filters`. A fetch that walks at most so many index entries
 * may answer a short page that still has more after it (BoundedRows.stoppedAt).
 */
export async function keysetPage<R extends { created_at: string; id: string }>(
  options: { secret: string; limit: string | undefined; cursor: string | undefined; filters: string },
  fetch: (after: CursorPosition | null, take: number) => Promise<R[] | BoundedRows<R>>,
): Promise<Page<R>> {
  const limit = parseLimit(options.limit);
  const after = options.cursor === undefined ? null : decodeCursor(options.secret, options.cursor, options.filters);
  const fetched = await fetch(after, limit + 1);
  const { rows, stoppedAt } = Array.isArray(fetched) ? { rows: fetched, stoppedAt: null } : fetched;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const next = rows.length > limit && last ? { t: last.created_at, i: last.id } : stoppedAt;
  return {
    rows: page,
    hasMore: next !== null,
    nextCursor: next ? encodeCursor(options.secret, next, options.filters) : null,
  };
}
