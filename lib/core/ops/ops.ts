// The operator's view across every workspace: the latest runs, the queue depth and the recent
// throughput, why runs fail, every catalog entry's state and health, and the operator's verbs
// (credit, pauses). Every one takes an OpsCtx (ops-principal.ts), which only an ops user's
// principal or the admin CLI has: a studio Ctx or a bare `{ db }` does not compile here.
import type { Db, GenerationStatus } from "../../store/database";
import { allCatalogEntries, isRetired } from "../catalog/catalog";
import type { Services } from "../context";
import { grantCredit, readBalance, type Balance } from "../credits/credits";
import { ApiError } from "../../primitives/errors";
import { presentRun, type Generation } from "../runs/generation-view";
import { parseRouteAttempts } from "../runs/run-attempts";
import type { RouteAttempt } from "../catalog/model-definition";
import { hasIdPrefix, ID_PREFIXES, isPossibleId } from "../../primitives/ids";
import { activePauses, availabilityOf, type Availability } from "../catalog/model-availability";
import { pauseModel, resumeModel } from "../catalog/model-pauses";
import { opsAuditBy, type OpsCtx } from "./ops-principal";
import { median, recentSucceededRuns, runSeconds } from "../runs/run-timings";
import { PAGE_SCAN_BOUND } from "../runs/history-query";
import {
  createWorkspace,
  findWorkspace,
  listWorkspaces,
  validateWorkspaceName,
  type Workspace,
} from "../workspaces/workspaces";
import { createInvitation, type CreatedInvitation } from "../workspaces/invitations";
import { parseEmail } from "../workspaces/emails";

export interface OpsRun {
  id: string;
  workspace_id: string;
  workspace_name: string;
  model: string;
  status: GenerationStatus;
  error_message: string | null;
  /** Micro-dollars held while it runs (the quote). */
  price_micros: number;
  /** Micro-dollars charged; null until it succeeded (a failed or canceled run is not charged). */
  charged_micros: number | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export interface OpsOverview {
  runs: OpsRun[];
  queued: number;
  running: number;
  created_last_minute: number;
}

/** Narrows the runs list; the queue figures always count every workspace. */
export interface OpsRunFilter {
  workspaceId?: string;
  status?: GenerationStatus;
  model?: string;
}

export async function opsOverview(
  ctx: OpsCtx,
  options: { limit?: number; now?: Date; filter?: OpsRunFilter } = {},
): Promise<OpsOverview> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  const since = new Date((options.now ?? new Date()).getTime() - 60_000).toISOString();
  const filter = options.filter ?? {};
  const reads = ctx.reads ?? ctx.db;
  const [runs, counts, recent] = await Promise.all([
    latestRuns(reads, filter, limit),
    reads
      .selectFrom("generations")
      .select((eb) => ["status", eb.fn.countAll<number>().as("n")])
      .where("status", "in", ["queued", "running"])
      .groupBy("status")
      .execute(),
    reads
      .selectFrom("generations")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("created_at", ">=", since)
      .executeTakeFirstOrThrow(),
  ]);
  const count = (status: GenerationStatus) => Number(counts.find((c) => c.status === status)?.n ?? 0);
  return {
    runs: runs.map((r) => ({
      ...r,
      price_micros: Number(r.price_micros),
      charged_micros: r.charged_micros === null ? null : Number(r.charged_micros),
    })),
    queued: count("queued"),
    running: count("running"),
    created_last_minute: Number(recent.n),
  };
}

/** The most index entries the latest-runs list walks (history-query.ts has the same bound). */
const LATEST_RUNS_SCAN_BOUND = PAGE_SCAN_BOUND;

/**
 * The newest runs that match the filter: a walk of the newest runs (of the workspace, or in the
 * status, when the filter names one), checking the rest on the way, at most LATEST_RUNS_SCAN_BOUND
 * entries, so a filter no recent run matches answers with fewer rows instead of reading every run.
 */
function latestRuns(db: Db, filter: OpsRunFilter, limit: number) {
  let walk = db
    .selectFrom("generations")
    .select([
      "id",
      "workspace_id",
      "model",
      "status",
      "error_message",
      "price_micros",
      "charged_micros",
      "created_at",
      "started_at",
      "completed_at",
    ]);
  if (filter.workspaceId) walk = walk.where("workspace_id", "=", filter.workspaceId);
  else if (filter.status) walk = walk.where("status", "=", filter.status);
  const window = walk.orderBy("created_at", "desc").orderBy("id", "desc").limit(LATEST_RUNS_SCAN_BOUND);
  return db
    .selectFrom(window.as("g"))
    .$if(!!filter.workspaceId && !!filter.status, (q) => q.where("g.status", "=", filter.status!))
    .$if(!!filter.model, (q) => q.where("g.model", "=", filter.model!))
    .innerJoin("workspaces", "workspaces.id", "g.workspace_id")
    .select([
      "g.id",
      "g.workspace_id",
      "workspaces.name as workspace_name",
      "g.model",
      "g.status",
      "g.error_message",
      "g.price_micros",
      "g.charged_micros",
      "g.created_at",
      "g.started_at",
      "g.completed_at",
    ])
    .orderBy("g.created_at", "desc")
    .orderBy("g.id", "desc")
    .limit(limit)
    .execute();
}

export interface FailureReason {
  /** The failed runs' error message with IDs and numbers masked (`gen_…`, `#`); null when a run failed without one. */
  message: string | null;
  count: number;
  /** How many workspaces saw it: one workspace's bad input, or everyone's outage? */
  workspaces: number;
  last_failed_at: string;
  /** A few of its runs, most recently failed first. */
  example_run_ids: string[];
}

/** The last day, unless the caller says otherwise. */
export const FAILURE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Runs shown per failure reason. */
const EXAMPLES_PER_REASON = 3;

/** (Exact message, workspace) groups read per call: the newest ones, enough for any sane day. */
const FAILURE_GROUPS_READ = 10_000;

const ID_TOKEN = new RegExp(`\\b(${Object.values(ID_PREFIXES).join("|")})[0-9A-Za-z]+`, "g");
/** Long tokens with a digit (UUIDs, a provider's job IDs, hashes): "…". */
const OPAQUE_TOKEN = /(?<![\p{L}\p{N}_-])(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{16,}(?![\p{L}\p{N}_-])/gu;
const NUMBER = /\d+(?:[.,]\d+)*/g;

/**
 * An error message with what differs from run to run masked, so one cause is one row: IDs as
 * their prefix and "…" ("The input file file_… no longer exists."), other long opaque tokens as
 * "…", and numbers as "#" ("The result would be #×#; …").
 */
export function maskFailureMessage(message: string): string {
  return message.replace(ID_TOKEN, "$1…").replace(OPAQUE_TOKEN, "…").replace(NUMBER, "#");
}

/**
 * Failed runs grouped by error message with IDs and numbers masked, most frequent first, for
 * runs that failed within the window and match the runs filter (a status filter other than
 * "failed" matches none). The store groups by exact message and workspace (one row per repeated
 * message, not per run); the masking merges those groups here, as SQLite and PostgreSQL share no
 * regular expressions.
 */
export async function opsFailureReasons(
  ctx: OpsCtx,
  options: { filter?: OpsRunFilter; now?: Date; windowMs?: number; limit?: number } = {},
): Promise<FailureReason[]> {
  const filter = options.filter ?? {};
  if (filter.status && filter.status !== "failed") return [];
  const since = new Date((options.now ?? new Date()).getTime() - (options.windowMs ?? FAILURE_WINDOW_MS)).toISOString();
  const limit = Math.min(Math.max(options.limit ?? 20, 1), 100);
  const rows = await (ctx.reads ?? ctx.db)
    .selectFrom("generations")
    .where("status", "=", "failed")
    .where("completed_at", ">=", since)
    .$if(!!filter.workspaceId, (q) => q.where("workspace_id", "=", filter.workspaceId!))
    .$if(!!filter.model, (q) => q.where("model", "=", filter.model!))
    .select((eb) => [
      "error_message",
      "workspace_id",
      eb.fn.countAll<number | string>().as("n"),
      eb.fn.max("completed_at").as("last"),
      // Two runs of each group as examples (IDs are random, so these are any two of them).
      eb.fn.max("id").as("one"),
      eb.fn.min("id").as("other"),
    ])
    .groupBy(["error_message", "workspace_id"])
    .orderBy("last", "desc")
    .limit(FAILURE_GROUPS_READ)
    .execute();
  const reasons = new Map<
    string | null,
    { count: number; workspaces: Set<string>; last: string; examples: string[] }
  >();
  // Newest groups first, so each reason's examples and last time come from its newest failures.
  for (const row of rows) {
    const key = row.error_message === null ? null : maskFailureMessage(row.error_message);
    let reason = reasons.get(key);
    if (!reason) {
      reason = { count: 0, workspaces: new Set(), last: String(row.last), examples: [] };
      reasons.set(key, reason);
    }
    reason.count += Number(row.n);
    reason.workspaces.add(row.workspace_id);
    for (const id of [String(row.one), String(row.other)]) {
      if (reason.examples.length < EXAMPLES_PER_REASON && !reason.examples.includes(id)) reason.examples.push(id);
    }
  }
  return [...reasons]
    .map(([message, r]) => ({
      message,
      count: r.count,
      workspaces: r.workspaces.size,
      last_failed_at: r.last,
      example_run_ids: r.examples,
    }))
    .sort(
      (a, b) =>
        b.count - a.count ||
        (a.last_failed_at < b.last_failed_at ? 1 : a.last_failed_at > b.last_failed_at ? -1 : 0) ||
        (a.message ?? "").localeCompare(b.message ?? ""),
    )
    .slice(0, limit);
}

/** A run of any workspace, for the operator's read-only run page; null when no run has that ID. */
export async function opsRun(
  ctx: OpsCtx,
  services: Services,
  id: string,
): Promise<{
  generation: Generation;
  workspace: { id: string; name: string };
  /** A routed run's attempts (never in the Generation); null for a run of one target. */
  attempts: RouteAttempt[] | null;
} | null> {
  if (!isPossibleId(id) || !hasIdPrefix("generation", id)) return null;
  const row = await ctx.db.selectFrom("generations").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return null;
  const workspace = await ctx.db
    .selectFrom("workspaces")
    .select(["id", "name"])
    .where("id", "=", row.workspace_id)
    .executeTakeFirstOrThrow();
  return {
    generation: await presentRun(ctx.db, services, row),
    workspace,
    attempts: parseRouteAttempts(row.route_attempts_json),
  };
}

/** How long a pause from the studio lasts, besides "until resumed". */
export const OPS_PAUSE_HOURS = [1, 4, 24] as const;

/** One catalog entry as ops see it: whether it takes runs, why not and the fix, and how it has been doing. */
export interface OpsModel {
  id: string;
  name: string;
  type: "model" | "preset";
  /** The remote provider's id; null for a built-in. */
  provider: string | null;
  retired: boolean;
  /** What its catalog entry says now (the same as GET /v1/models). */
  availability: Availability;
  /** Its own pause (admin CLI or studio), when one is in force. */
  pause: {
    reason: string;
    until: string | null;
    since: string;
    /** "admin CLI" or the ops user's email; null for pauses made before it was kept. */ by: string | null;
  } | null;
  /** Its provider's outage as the store has it (any process may have found it), when in force. */
  provider_outage: { reason: string; until: string; since: string } | null;
  /** Runs that ended within the window (succeeded, failed or canceled) and how many of those failed. */
  finished: number;
  failed: number;
  /** failed / finished; null when none finished. */
  failure_rate: number | null;
  /** The median run time of its last TYPICAL_RUN_SAMPLE succeeded runs (as `typicalRunSeconds`); null without any. */
  typical_run_seconds: number | null;
}

/** Median seconds of each entry's last succeeded runs, in one statement: one short index read per entry. */
async function typicalRunSecondsOf(db: Db, ids: readonly string[]): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>(ids.map((id) => [id, null]));
  if (ids.length === 0) return out;
  // One arm per entry, each `ORDER BY completed_at DESC LIMIT n` on the index of migration 012;
  // a window function over the runs table would read every succeeded run ever made instead.
  const arm = (id: string) =>
    db
      .selectFrom(recentSucceededRuns(db, id).as("recent"))
      .select((eb) => [eb.val(id).as("entry"), "recent.started_at", "recent.completed_at"]);
  const [first, ...rest] = ids;
  const rows = await rest.reduce((q, id) => q.unionAll(arm(id)), arm(first!)).execute();
  const seconds = new Map<string, number[]>();
  for (const row of rows) {
    const entry = String(row.entry);
    seconds.set(entry, [...(seconds.get(entry) ?? []), ...runSeconds([row])]);
  }
  for (const [entry, values] of seconds) out.set(entry, median(values));
  return out;
}

/**
 * Every catalog entry (retired ones last) with its state, its pause or its provider's outage,
 * its failure rate over the window and its typical run time: four statements in all, whatever
 * the size of the catalog.
 */
export async function opsModels(ctx: OpsCtx, options: { now?: Date; windowMs?: number } = {}): Promise<OpsModel[]> {
  const now = options.now ?? new Date();
  const nowIso = now.toISOString();
  const since = new Date(now.getTime() - (options.windowMs ?? FAILURE_WINDOW_MS)).toISOString();
  const definitions = allCatalogEntries();
  const reads = ctx.reads ?? ctx.db;
  const [pauses, pauseRows, outageRows, finishedRows, typical] = await Promise.all([
    activePauses(ctx.db, now),
    ctx.db.selectFrom("model_pauses").selectAll().execute(),
    ctx.db.selectFrom("provider_outages").selectAll().execute(),
    reads
      .selectFrom("generations")
      .where("completed_at", ">=", since)
      .where("status", "in", ["succeeded", "failed", "canceled"])
      .select((eb) => [
        "model",
        eb.fn.countAll<number | string>().as("finished"),
        eb.fn.sum<number | string | null>(eb.case().when("status", "=", "failed").then(1).else(0).end()).as("failed"),
      ])
      .groupBy("model")
      .execute(),
    typicalRunSecondsOf(
      reads,
      definitions.map((d) => d.id),
    ),
  ]);
  const inForce = (until: string | null) => until === null || until > nowIso;
  const pauseOf = new Map(
    pauseRows
      .filter((p) => inForce(p.paused_until))
      .map((p) => [
        p.model_id,
        { reason: p.reason, until: p.paused_until, since: p.created_at, by: p.paused_by ?? null },
      ]),
  );
  const outageOf = new Map(
    outageRows
      .filter((o) => inForce(o.down_until))
      .map((o) => [o.provider_id, { reason: o.reason, until: o.down_until, since: o.updated_at }]),
  );
  const finishedOf = new Map(
    finishedRows.map((r) => [r.model, { finished: Number(r.finished), failed: Number(r.failed ?? 0) }]),
  );
  return definitions
    .map((d): OpsModel => {
      const counts = finishedOf.get(d.id) ?? { finished: 0, failed: 0 };
      const provider = d.provider && d.provider !== "atelier" ? d.provider : null;
      return {
        id: d.id,
        name: d.name,
        type: d.type,
        provider,
        retired: isRetired(d.lifecycle, now.getTime()),
        availability: availabilityOf(d, pauses),
        pause: pauseOf.get(d.id) ?? null,
        provider_outage: provider ? (outageOf.get(provider) ?? null) : null,
        finished: counts.finished,
        failed: counts.failed,
        failure_rate: counts.finished === 0 ? null : counts.failed / counts.finished,
        typical_run_seconds: typical.get(d.id) ?? null,
      };
    })
    .sort((a, b) => Number(a.retired) - Number(b.retired) || a.id.localeCompare(b.id));
}

/** Every workspace, oldest first, with its balance: the ops page's workspace filter and credit form. */
export async function opsWorkspaces(ctx: OpsCtx): Promise<(Workspace & { balance: Balance })[]> {
  const workspaces = await listWorkspaces(ctx);
  const balances = await Promise.all(workspaces.map((w) => readBalance(ctx.db, w.id)));
  return workspaces.map((w, i) => ({ ...w, balance: balances[i]! }));
}

/** Adds credit to any workspace, noted with the operator who did it unless a note is given. */
export async function opsGrantCredit(
  ctx: OpsCtx,
  input: { workspaceId: string; amountMicros: number; note?: string },
): Promise<{ workspace: Workspace; balance: Balance }> {
  const workspace =
    isPossibleId(input.workspaceId) && hasIdPrefix("workspace", input.workspaceId)
      ? await findWorkspace(ctx, input.workspaceId)
      : null;
  if (!workspace)
    throw new ApiError("resource_not_found", `No workspace ${input.workspaceId.slice(0, 100)}.`, {
      param: "workspace",
    });
  const balance = await grantCredit(ctx, {
    workspaceId: workspace.id,
    amountMicros: input.amountMicros,
    note: input.note || `added in the studio by ${ctx.operator}`,
    audit: opsAuditBy(ctx),
  });
  return { workspace, balance };
}

/**
 * A new workspace and its first owner's invitation, in one step (the ops page): the workspace
 * starts with no member, and whoever accepts becomes its owner. The caller mails or shows the link.
 */
export async function opsCreateWorkspace(
  ctx: OpsCtx,
  input: { name: unknown; ownerEmail: unknown },
): Promise<{ workspace: Workspace; invitation: CreatedInvitation }> {
  if (typeof input.name !== "string")
    throw new ApiError("invalid_parameter", "A workspace name is text.", { param: "name" });
  const name = validateWorkspaceName(input.name);
  const email = parseEmail(input.ownerEmail, "owner_email");
  const audit = opsAuditBy(ctx);
  const workspace = await createWorkspace(ctx, { name, audit });
  // As ops, not as a member of it: no role, so the owner's invitation is theirs to give.
  const invitation = await createInvitation(
    { db: ctx.db, workspaceId: workspace.id, ...audit },
    { email, role: "owner" },
  );
  return { workspace, invitation };
}

/** Takes a catalog entry out of service (the admin CLI's `model pause`), kept with who paused it. */
export function opsPauseModel(
  ctx: OpsCtx,
  input: { modelId: string; until: string | null; reason: string },
): ReturnType<typeof pauseModel> {
  return pauseModel(ctx, { ...input, by: ctx.operator, audit: opsAuditBy(ctx) });
}

/** Puts a paused entry back in service. */
export function opsResumeModel(ctx: OpsCtx, input: { modelId: string }): ReturnType<typeof resumeModel> {
  return resumeModel(ctx, { ...input, audit: opsAuditBy(ctx) });
}
