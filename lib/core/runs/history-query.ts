// A page of a workspace's run history, read as a seek at any history size: the page walks one
// index newest first — the one of its most telling filter (migration 019) — and checks the other
// filters on the way, walking at most PAGE_SCAN_BOUND entries. A page that reaches the bound
// before it is full answers with what it found and a cursor that goes on from where it stopped,
// so no filter, however rare its matches, makes one request read the whole history.
import type { SelectQueryBuilder } from "kysely";
import { sql } from "kysely";
import type { CursorPosition } from "../../primitives/cursor";
import { afterPosition, type BoundedRows } from "../../primitives/paging";
import type { Database, Db, GenerationsTable, GenerationStatus } from "../../store/database";

/** The most index entries one history page walks. */
export const PAGE_SCAN_BOUND = 5_000;

export interface HistoryFilter {
  workspaceId: string;
  /** A catalog ID; with "@version" it names one version, without it every version. */
  model?: string;
  sources?: readonly string[] | null;
  statuses?: readonly GenerationStatus[] | null;
  batch?: string;
  createdBy?: string | null;
  /** A LIKE pattern over the lower-cased input (promptSearchPattern). */
  pattern?: string | null;
  /** Created at or after this instant. */
  from?: string | null;
  /** Created before this instant. */
  before?: string | null;
}

type Lead = "batch" | "status" | "createdBy" | "model" | "source" | null;

/** The leading filter: the one whose index is walked. Live states first: they are few. */
function leadOf(f: HistoryFilter): Lead {
  const oneStatus = f.statuses?.length === 1 ? f.statuses[0] : undefined;
  if (f.batch !== undefined) return "batch";
  if (oneStatus === "queued" || oneStatus === "running") return "status";
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
  if (f.from) q = q.where("created_at", ">=", f.from);
  // A cursor of this list lies inside its day range: its position is then the upper bound, so
  // that the store seeks to it rather than walking down from the range's end.
  if (after) q = q.where((eb) => afterPosition(eb, after));
  else if (f.before) q = q.where("created_at", "<", f.before);
  return q.orderBy("created_at", "desc").orderBy("id", "desc");
}

function baseOf(model: string): string {
  const at = model.indexOf("@");
  return at === -1 ? model : model.slice(0, at);
}

/** Whether the filters the walk leaves to check on the way narrow it at all. */
function checksOnTheWay(f: HistoryFilter, lead: Lead): boolean {
  return (
    (f.model !== undefined && (lead !== "model" || f.model.includes("@"))) ||
    (!!f.sources && lead !== "source") ||
    (!!f.statuses && lead !== "status") ||
    (f.batch !== undefined && lead !== "batch") ||
    (!!f.createdBy && lead !== "createdBy") ||
    !!f.pattern
  );
}

/** Up to `take` runs after `after`, newest first, that pass every filter (see the file's head). */
export async function historyPage(
  db: Db,
  f: HistoryFilter,
  after: CursorPosition | null,
  take: number,
  bound = PAGE_SCAN_BOUND,
): Promise<BoundedRows<GenerationsTable>> {
  const lead = leadOf(f);
  if (!checksOnTheWay(f, lead)) {
    return {
      rows: await walk(db.selectFrom("generations").selectAll(), f, lead, after).limit(take).execute(),
      stoppedAt: null,
    };
  }
  const window = walk(db.selectFrom("generations").selectAll(), f, lead, after).limit(bound);
  let q = db.selectFrom(window.as("w")).selectAll();
  if (f.model !== undefined) {
    q = f.model.includes("@") ? q.where("w.model", "=", f.model) : q.where("w.model_base", "=", f.model);
  }
  if (f.sources && lead !== "source") q = q.where("w.source", "in", f.sources);
  if (f.statuses && lead !== "status") q = q.where("w.status", "in", f.statuses);
  if (f.batch !== undefined && lead !== "batch") q = q.where("w.batch_id", "=", f.batch);
  if (f.createdBy && lead !== "createdBy") q = q.where("w.created_by", "=", f.createdBy);
  if (f.pattern) q = q.where(sql<boolean>`lower(w.input_json) like ${f.pattern} escape '\\'`);
  const rows = (await q
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
