// A page of a workspace's run history, read as a seek at any history size: the page walks one
// index newest first — the one of its most telling filter (lib/store/online-indexes.ts; for a
// prompt search, the text index) — and checks the other filters on the way, walking at most
// PAGE_SCAN_BOUND entries. A page that reaches the bound before it is full answers with what it
// found and a cursor that goes on from where it stopped, so no filter, however rare its matches,
// makes one request read the whole history.
import { sql, type RawBuilder, type SelectQueryBuilder } from "kysely";
import type { CursorPosition } from "../../primitives/cursor";
import { afterPosition, type BoundedRows } from "../../primitives/paging";
import type { Database, Db, GenerationsTable, GenerationStatus } from "../../store/database";
import { onPostgres } from "../../store/dialects";
import { withinBudget } from "../../store/read-budget";
import { SEARCH_KEY_BITS } from "../../store/migrations/019-prompt-search";

/** The most index entries one history page walks. */
export const PAGE_SCAN_BOUND = 5_000;
/**
 * The most text index entries one search page reads on SQLite: each costs more than an entry of
 * a history index (the trigrams of every word intersected, then the run looked up by ID).
 */
export const SEARCH_SCAN_BOUND = 2_000;

export interface HistoryFilter {
  workspaceId: string;
  /** A catalog ID; with "@version" it names one version, without it every version. */
  model?: string;
  sources?: readonly string[] | null;
  statuses?: readonly GenerationStatus[] | null;
  batch?: string;
  createdBy?: string | null;
  /** Words to find in the run's input (promptSearch in generations.ts). */
  search?: PromptSearch | null;
  /** Created at or after this instant. */
  from?: string | null;
  /** Created before this instant. */
  before?: string | null;
}

export interface PromptSearch {
  /** The words as they stand in the stored input JSON, lower-cased: what the text index matches. */
  stored: string;
  /** The LIKE pattern of them over lower(input_json), the final check on every run found. */
  pattern: string;
}

type Lead = "batch" | "status" | "search" | "createdBy" | "model" | "source" | null;

/**
 * The leading filter: the one whose index is walked. Live states first: they are few; then a
 * prompt search the text index serves, whose walk reads only matching runs.
 */
function leadOf(f: HistoryFilter): Lead {
  const oneStatus = f.statuses?.length === 1 ? f.statuses[0] : undefined;
  if (f.batch !== undefined) return "batch";
  if (oneStatus === "queued" || oneStatus === "running") return "status";
  if (indexedSearch(f) !== null) return "search";
  if (f.createdBy) return "createdBy";
  if (f.model !== undefined) return "model";
  if (f.sources?.length === 1) return "source";
  if (oneStatus !== undefined) return "status";
  return null;
}

type RunsQuery<O> = SelectQueryBuilder<Database, "generations", O>;

/** The walk: the workspace, the leading filter, the day range and the cursor (all index columns). */
function walk<O>(q: RunsQuery<O>, f: HistoryFilter, lead: Lead, after: CursorPosition | null): RunsQuery<O> {
  q = q.where("workspace_id", "=", f.workspaceId);
  if (lead === "batch") q = q.where("batch_id", "=", f.batch!);
  else if (lead === "status") q = q.where("status", "=", f.statuses![0]!);
  else if (lead === "createdBy") q = q.where("created_by", "=", f.createdBy!);
  else if (lead === "model") q = q.where("model_base", "=", baseOf(f.model!));
  else if (lead === "source") q = q.where("source", "=", f.sources![0]!);
  else if (lead === "search") q = q.where(likePattern(sql.ref("input_json"), f.search!.pattern));
  if (f.from) q = q.where("created_at", ">=", f.from);
  // A cursor of this list lies inside its day range: its position is then the upper bound, so
  // that the store seeks to it rather than walking down from the range's end.
  if (after) q = q.where((eb) => afterPosition(eb, after));
  else if (f.before) q = q.where("created_at", "<", f.before);
  return q.orderBy("created_at", "desc").orderBy("id", "desc");
}

/** The search's own test, kept as the final check whichever index found the run. */
function likePattern(column: RawBuilder<unknown>, pattern: string) {
  return sql<boolean>`lower(${column}) like ${pattern} escape '\\'`;
}

/** The words of the search when a text index can serve them: 3+ characters, the trigram indexes' least. */
function indexedSearch(f: HistoryFilter): string | null {
  return f.search && [...f.search.stored].length >= 3 ? f.search.stored : null;
}

function baseOf(model: string): string {
  const at = model.indexOf("@");
  return at === -1 ? model : model.slice(0, at);
}

/**
 * The filters the walk leaves to check on the way (all but the leading one), over `column`'s
 * columns; the search's LIKE always, as the final check.
 */
function checksOnTheWay(f: HistoryFilter, lead: Lead, column: (name: string) => RawBuilder<unknown>) {
  const is = (name: string, value: string) => sql<boolean>`${column(name)} = ${value}`;
  const isOneOf = (name: string, values: readonly string[]) => sql<boolean>`${column(name)} in (${sql.join(values)})`;
  const checks: RawBuilder<boolean>[] = [];
  if (f.model !== undefined && (lead !== "model" || f.model.includes("@"))) {
    checks.push(f.model.includes("@") ? is("model", f.model) : is("model_base", f.model));
  }
  if (f.sources && lead !== "source") checks.push(isOneOf("source", f.sources));
  if (f.statuses && lead !== "status") checks.push(isOneOf("status", f.statuses));
  if (f.batch !== undefined && lead !== "batch") checks.push(is("batch_id", f.batch));
  if (f.createdBy && lead !== "createdBy") checks.push(is("created_by", f.createdBy));
  if (f.search) checks.push(likePattern(column("input_json"), f.search.pattern));
  return checks;
}

const all = (checks: readonly RawBuilder<boolean>[]) => sql<boolean>`${sql.join(checks, sql` and `)}`;

/** Up to `take` runs after `after`, newest first, that pass every filter (see the file's head). */
export async function historyPage(
  db: Db,
  f: HistoryFilter,
  after: CursorPosition | null,
  take: number,
  bound = PAGE_SCAN_BOUND,
): Promise<BoundedRows<GenerationsTable>> {
  const lead = leadOf(f);
  if (lead !== "search") return walkPage(db, f, lead, after, take, bound);
  if (!onPostgres(db)) return searchPage(db, f, indexedSearch(f)!, after, take, Math.min(bound, SEARCH_SCAN_BOUND));
  return pgSearchPage(db, f, after, take, bound);
}

/** The walk of the leading filter's index, at most `bound` entries, every other filter checked on the way. */
async function walkPage(
  db: Db,
  f: HistoryFilter,
  lead: Lead,
  after: CursorPosition | null,
  take: number,
  bound: number,
): Promise<BoundedRows<GenerationsTable>> {
  const checks = checksOnTheWay(f, lead, (name) => sql.ref(`w.${name}`));
  if (checks.length === 0) {
    return {
      rows: await walk(db.selectFrom("generations").selectAll(), f, lead, after).limit(take).execute(),
      stoppedAt: null,
    };
  }
  const window = walk(db.selectFrom("generations").selectAll(), f, lead, after).limit(bound);
  const rows = (await db
    .selectFrom(window.as("w"))
    .selectAll()
    .where(all(checks))
    .orderBy("w.created_at", "desc")
    .orderBy("w.id", "desc")
    .limit(take)
    .execute()) as GenerationsTable[];
  if (rows.length >= take) return { rows, stoppedAt: null };
  // A short page: the history is over, or the walk reached its bound and the next page goes on.
  const edge = await walk(db.selectFrom("generations").select(["created_at", "id"]), f, lead, after)
    .offset(bound - 1)
    .limit(1)
    .executeTakeFirst();
  return { rows, stoppedAt: edge ? { t: edge.created_at, i: edge.id } : null };
}

/** How long a PostgreSQL search page asks the text index (pg_trgm) before it goes on by stretches. */
export const TEXT_INDEX_BUDGET_MS = 30;

/**
 * A search page on PostgreSQL. The trigram index finds a word's runs but not in created_at order:
 * the store sorts every match, which for a word in a fifth of the history is 200,000 rows at a
 * million runs. So the page first walks the workspace's newest runs (a bounded stretch, each
 * checked), where a frequent word fills it; only then does it ask the index for the older matches,
 * which suits a rare word. The index gets TEXT_INDEX_BUDGET_MS: a word it would take longer to
 * sort (frequent, but only in older runs) ends the page where the stretch did, and the next page
 * goes on from there.
 */
async function pgSearchPage(
  db: Db,
  f: HistoryFilter,
  after: CursorPosition | null,
  take: number,
  bound: number,
): Promise<BoundedRows<GenerationsTable>> {
  const newest = await walkPage(db, f, null, after, take, bound);
  if (newest.rows.length >= take || newest.stoppedAt === null) return newest;
  const from = newest.stoppedAt;
  const older = await withinBudget(db, TEXT_INDEX_BUDGET_MS, (trx) =>
    textIndexMatches(trx, f, from, take - newest.rows.length),
  );
  return older ? { rows: [...newest.rows, ...older], stoppedAt: null } : newest;
}

/**
 * Every run whose input holds the words, found through the trigram index alone (a materialized
 * CTE with no other condition, so the planner has no other index to choose), then the page's own:
 * the workspace, the position, the day range and every other filter.
 */
async function textIndexMatches(
  db: Db,
  f: HistoryFilter,
  after: CursorPosition,
  take: number,
): Promise<GenerationsTable[]> {
  let q = db
    .with(
      (cte) => cte("matches").materialized(),
      (m) =>
        m
          .selectFrom("generations")
          .select(["id", "workspace_id", "created_at"])
          .where(likePattern(sql.ref("input_json"), f.search!.pattern)),
    )
    .selectFrom("matches as m")
    .innerJoin("generations as g", "g.id", "m.id")
    .selectAll("g")
    .where("m.workspace_id", "=", f.workspaceId)
    .where((eb) => eb(eb.refTuple("m.created_at", "m.id"), "<", eb.tuple(after.t, after.i)));
  if (f.from) q = q.where("m.created_at", ">=", f.from);
  if (f.before) q = q.where("m.created_at", "<", f.before);
  return (await q
    .where(all(checksOnTheWay(f, "search", (name) => sql.ref(`g.${name}`))))
    .orderBy("m.created_at", "desc")
    .orderBy("m.id", "desc")
    .limit(take)
    .execute()) as GenerationsTable[];
}

/** One millisecond of created_at in the keys of the SQLite text index (migration 019). */
const KEY_MS = 2 ** SEARCH_KEY_BITS;
/** The first stretch of a search walk; each next one is this many times longer, up to the bound. */
const FIRST_STRETCH = 64;
const STRETCH_GROWTH = 4;

/**
 * A search page on SQLite: the FTS5 trigram table's walk, newest first, in stretches. Its keys
 * order runs by created_at to the millisecond, so a stretch less its oldest millisecond (which the
 * next stretch reads again, whole) holds every match in its range: sorting each stretch by
 * (created_at, id) gives exactly the runs the LIKE would, and stretches follow each other in that
 * order. The table spans workspaces; every other filter, and the LIKE itself, is checked on
 * the runs found. The walk stops at a full page, at the index's end, or past `bound` entries.
 */
async function searchPage(
  db: Db,
  f: HistoryFilter,
  text: string,
  after: CursorPosition | null,
  take: number,
  bound: number,
): Promise<BoundedRows<GenerationsTable>> {
  const phrase = `"${text.replace(/"/g, '""')}"`;
  const msOf = (iso: string) => Date.parse(iso);
  // A cursor with no ID (where a walk stopped, below) stands before its millisecond; any other, inside it.
  let top = after ? msOf(after.t) + (after.i === "" ? 0 : 1) : f.before ? msOf(f.before) : null;
  const floor = f.from ? msOf(f.from) : null;
  const range = (upper: number | null, lower: number | null) =>
    sql.join(
      [
        sql`generations_search match ${phrase}`,
        ...(upper !== null && !Number.isNaN(upper) ? [sql`rowid < ${upper} * ${KEY_MS}`] : []),
        ...(lower !== null && !Number.isNaN(lower) ? [sql`rowid >= ${lower} * ${KEY_MS}`] : []),
      ],
      sql` and `,
    );
  const rows: GenerationsTable[] = [];
  let walked = 0;
  for (let stretch = FIRST_STRETCH; ; stretch *= STRETCH_GROWTH) {
    const limit = Math.max(1, Math.min(stretch, bound - walked));
    const found = await sql<{ run: string; ms: number }>`
      select run, rowid >> ${SEARCH_KEY_BITS} as ms from generations_search where ${range(top, floor)}
      order by rowid desc limit ${limit}`.execute(db);
    walked += found.rows.length;
    let read = found.rows;
    // Where the next stretch starts: before the oldest millisecond read whole.
    let next: number | null = null;
    if (found.rows.length >= limit) {
      const edgeMs = Number(found.rows[found.rows.length - 1]!.ms);
      read = found.rows.filter((r) => Number(r.ms) > edgeMs);
      next = edgeMs + 1;
      if (!read.length) {
        // The whole stretch is one millisecond's (a batch's runs): read the rest of it.
        const rest = await sql<{ run: string; ms: number }>`
          select run, ${edgeMs} as ms from generations_search where ${range(edgeMs + 1, edgeMs)}`.execute(db);
        read = [...found.rows, ...rest.rows];
        next = edgeMs;
      }
    }
    const ids = new Set(read.map((r) => r.run));
    if (ids.size) rows.push(...(await searchedRuns(db, f, ids, after, take - rows.length)));
    if (rows.length >= take || next === null) return { rows, stoppedAt: null };
    // Every match at or after `next` was read: the next stretch, or page, starts before it.
    if (walked >= bound) return { rows, stoppedAt: { t: new Date(next).toISOString(), i: "" } };
    top = next;
  }
}

/** The runs of these IDs that pass every filter, newest first: one primary-key lookup each. */
async function searchedRuns(
  db: Db,
  f: HistoryFilter,
  ids: ReadonlySet<string>,
  after: CursorPosition | null,
  take: number,
): Promise<GenerationsTable[]> {
  // CROSS JOIN keeps SQLite's join order: the IDs first, rather than a walk of a workspace index.
  let q = db
    .selectFrom(sql<{ value: string }>`json_each(${JSON.stringify([...ids])})`.as("j"))
    .crossJoin("generations")
    .selectAll("generations")
    .whereRef("generations.id", "=", "j.value")
    .where("workspace_id", "=", f.workspaceId);
  if (f.from) q = q.where("created_at", ">=", f.from);
  if (f.before) q = q.where("created_at", "<", f.before);
  // Qualified: json_each has an id column of its own.
  if (after) {
    q = q.where((eb) => eb(eb.refTuple("generations.created_at", "generations.id"), "<", eb.tuple(after.t, after.i)));
  }
  q = q.where(all(checksOnTheWay(f, "search", (name) => sql.ref(`generations.${name}`))));
  return (await q
    .orderBy("generations.created_at", "desc")
    .orderBy("generations.id", "desc")
    .limit(take)
    .execute()) as GenerationsTable[];
}
