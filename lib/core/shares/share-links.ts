// Share links: a public, revocable link to one succeeded run, for showing it to someone without
// an account (the studio's /s/<token> page). The token is 24 random base62 characters (~143 bits)
// and a truncated HMAC of them under SECRET_KEY, so a forged or mistyped token is refused before
// any query; the store keeps only its SHA-256, so a copy of the store opens no link. A revoked or
// expired link, an unknown token and a malformed one all read the same: not found.
import { createHash, timingSafeEqual } from "node:crypto";
import { signBlobLink } from "../../blobs/links";
import { allCatalogEntries } from "../catalog/catalog";
import { nowIso, requireScope, type Ctx, type Services } from "../context";
import { ApiError } from "../../primitives/errors";
import { fileExtensionOf, type BoundingBox, type StoredOutput } from "../runs/generation-view";
import { hasIdPrefix, isPossibleId, newId, randomBase62 } from "../../primitives/ids";
import type { OpsCtx } from "../ops/ops-principal";
import type { JsonSchemaObject } from "../../primitives/json-schema";
import { sign } from "../../primitives/signing";
import type { Db, GenerationStatus, ShareLinksTable } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { recordAudit } from "../audit/audit-writer";

/** How long a new link lives: days, or null for a link that never expires. */
export const SHARE_EXPIRY_CHOICES = { "1d": 1, "7d": 7, "30d": 30, never: null } as const;
export type ShareExpiry = keyof typeof SHARE_EXPIRY_CHOICES;

/** Where the studio serves a shared run. */
export const SHARE_PATH = "/s/";

const PURPOSE = "share-link";
const RANDOM_LENGTH = 24;
const SIGNATURE_LENGTH = 22; // base64url characters of the HMAC kept: 132 bits
const TOKEN = new RegExp(`^[0-9A-Za-z]{${RANDOM_LENGTH}}\\.[0-9A-Za-z_-]{${SIGNATURE_LENGTH}}$`);
const TOKEN_LENGTH = RANDOM_LENGTH + 1 + SIGNATURE_LENGTH;

export type ShareLinkState = "active" | "expired" | "revoked";

export interface ShareLink {
  id: string;
  object: "share_link";
  run_id: string;
  /** The end of the link, to tell links apart ("/s/…Ab3x"); the whole link is shown only once. */
  hint: string;
  show_input: boolean;
  state: ShareLinkState;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  /** Who made it: the studio user's email, else the API key's name, else the actor's ID. */
  created_by: string;
  /** How many times the public page was opened. */
  open_count: number;
  last_opened_at: string | null;
}

/** A new link: the only time its token (and so its address) is known. */
export type CreatedShareLink = ShareLink & { token: string; path: string };

/** A run's field as the public page shows it. */
export interface SharedField {
  name: string;
  title: string;
  value: string;
}

/** An output as the public page plays it: signed same-origin links, and one that downloads it by name. */
export interface SharedOutput {
  type: string;
  url: string;
  /** The same bytes answered as an attachment named "<model>-<n>.<ext>". */
  download_url: string;
  content_type: string;
  width?: number;
  height?: number;
  duration?: number;
  /** 3D: as in the API's output item. */
  vertices?: number;
  triangles?: number;
  bounding_box?: BoundingBox;
  poster?: { url: string; width: number; height: number };
}

/** What the public page shows of a run, and nothing more: no IDs, workspace, cost or creator. */
export interface SharedRun {
  model: string;
  model_name: string;
  modality: string;
  /** The first text field of the input (the prompt), when the sharer chose to show the input. */
  prompt: SharedField | null;
  /** The other input fields, when the sharer chose to show the input; else null. */
  details: SharedField[] | null;
  /** Signed same-origin links (/v1/blobs/…) valid for 24 hours and only while the share link is live. */
  outputs: SharedOutput[];
  completed_at: string | null;
  /** When output retention deleted the outputs (`outputs` is then empty); the link itself still opens. */
  outputs_purged_at: string | null;
}

export interface OpsShareLink extends ShareLink {
  workspace_id: string;
  workspace_name: string;
  model: string;
}

function tokenSignature(secret: string, random: string): string {
  return sign(secret, PURPOSE, random).slice(0, SIGNATURE_LENGTH);
}

function newToken(secret: string): string {
  const random = randomBase62(RANDOM_LENGTH);
  return `${random}.${tokenSignature(secret, random)}`;
}

/** Whether the token is one this installation made; says nothing of whether its link still exists. */
export function isSignedShareToken(secret: string, token: unknown): token is string {
  if (typeof token !== "string" || token.length !== TOKEN_LENGTH || !TOKEN.test(token)) return false;
  const random = token.slice(0, RANDOM_LENGTH);
  const expected = Buffer.from(tokenSignature(secret, random));
  const given = Buffer.from(token.slice(RANDOM_LENGTH + 1));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function stateOf(row: Pick<ShareLinksTable, "revoked_at" | "expires_at">, now: number): ShareLinkState {
  if (row.revoked_at) return "revoked";
  if (row.expires_at && Date.parse(row.expires_at) <= now) return "expired";
  return "active";
}

type JoinedRow = ShareLinksTable & { creator_email: string | null; creator_key_name: string | null };

function present(row: JoinedRow, now = Date.now()): ShareLink {
  return {
    id: row.id,
    object: "share_link",
    run_id: row.generation_id,
    hint: `${SHARE_PATH}…${row.token_hint}`,
    show_input: Number(row.show_input) === 1,
    state: stateOf(row, now),
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    created_by: row.creator_email ?? row.creator_key_name ?? row.created_by,
    open_count: Number(row.open_count),
    last_opened_at: row.last_opened_at,
  };
}

function notFound(): ApiError {
  return new ApiError(
    "resource_not_found",
    "No shared run at this address. The link may have been revoked or may have expired.",
  );
}

async function requireRun(ctx: Ctx, id: string): Promise<{ id: string; status: GenerationStatus }> {
  const row =
    typeof id === "string" && hasIdPrefix("generation", id) && isPossibleId(id)
      ? await ctx.db
          .selectFrom("generations")
          .select(["id", "status"])
          .where("workspace_id", "=", ctx.workspaceId)
          .where("id", "=", id)
          .executeTakeFirst()
      : undefined;
  if (!row)
    throw new ApiError("resource_not_found", `No generation ${String(id).slice(0, 100)} in this workspace.`, {
      param: "run",
    });
  return row;
}

/** The links with their makers' names (a user's email, an API key's name). */
function selectLinks(db: Db) {
  return db
    .selectFrom("share_links")
    .leftJoin("users", "users.id", "share_links.created_by")
    .leftJoin("api_keys", "api_keys.id", "share_links.created_by")
    .selectAll("share_links")
    .select(["users.email as creator_email", "api_keys.name as creator_key_name"]);
}

const WHY_NOT_SHAREABLE: Record<GenerationStatus, string> = {
  queued: "This run has not started yet: only a succeeded run can be shared. Share it once it has succeeded.",
  running: "This run is still running: only a succeeded run can be shared. Share it once it has succeeded.",
  failed: "This run failed, so it has no outputs to show: only a succeeded run can be shared.",
  canceled: "This run was canceled, so it has no outputs to show: only a succeeded run can be shared.",
  succeeded: "",
};

/** Makes a public link to a succeeded run of the workspace. The answer carries the token, once. */
export async function createShareLink(
  ctx: Ctx,
  input: { runId: string; expires?: string; showInput?: boolean },
): Promise<CreatedShareLink> {
  requireScope(ctx, "generations:write");
  const expires = input.expires ?? "7d";
  if (!Object.hasOwn(SHARE_EXPIRY_CHOICES, expires)) {
    throw new ApiError("invalid_parameter", `Expiry is one of ${Object.keys(SHARE_EXPIRY_CHOICES).join(", ")}.`, {
      param: "expires",
    });
  }
  if (input.showInput !== undefined && typeof input.showInput !== "boolean") {
    throw new ApiError("invalid_parameter", "show_input is true or false.", { param: "show_input" });
  }
  const run = await requireRun(ctx, input.runId);
  if (run.status !== "succeeded")
    throw new ApiError("invalid_request", WHY_NOT_SHAREABLE[run.status], { status: 409, param: "run" });

  const token = newToken(ctx.services.secretKey);
  const days = SHARE_EXPIRY_CHOICES[expires as ShareExpiry];
  const now = new Date();
  const row: ShareLinksTable = {
    id: newId("shareLink"),
    workspace_id: ctx.workspaceId,
    generation_id: run.id,
    token_hash: hashToken(token),
    token_hint: token.slice(-4),
    show_input: input.showInput ? 1 : 0,
    created_by: ctx.actor.id,
    created_at: now.toISOString(),
    expires_at: days === null ? null : new Date(now.getTime() + days * 86_400_000).toISOString(),
    revoked_at: null,
    open_count: 0,
    last_opened_at: null,
  };
  await withTransaction(ctx.db, async (trx) => {
    await trx.insertInto("share_links").values(row).execute();
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "share_link.created",
      target: { type: "share_link", id: row.id },
      changes: { run_id: run.id, expires_at: row.expires_at, show_input: row.show_input === 1 },
    });
  });
  const stored = await selectLinks(ctx.db).where("share_links.id", "=", row.id).executeTakeFirstOrThrow();
  return { ...present(stored), token, path: `${SHARE_PATH}${token}` };
}

/** A run's links, newest first, revoked and expired ones included. */
export async function listShareLinks(ctx: Ctx, input: { runId: string }): Promise<ShareLink[]> {
  requireScope(ctx, "generations:read");
  const run = await requireRun(ctx, input.runId);
  const rows = await selectLinks(ctx.db)
    .where("share_links.workspace_id", "=", ctx.workspaceId)
    .where("share_links.generation_id", "=", run.id)
    .orderBy("share_links.created_at", "desc")
    .orderBy("share_links.id", "desc")
    .limit(100)
    .execute();
  const now = Date.now();
  return rows.map((r) => present(r, now));
}

/** Revoking is safe to repeat: the first revocation time stays. A link of another workspace is not found. */
export async function revokeShareLink(ctx: Ctx, input: { id: string }): Promise<ShareLink> {
  requireScope(ctx, "generations:write");
  const id = input.id;
  if (typeof id !== "string" || !hasIdPrefix("shareLink", id) || !isPossibleId(id)) {
    throw new ApiError("resource_not_found", "No share link with that ID in this workspace.", { param: "id" });
  }
  await withTransaction(ctx.db, async (trx) => {
    const revoked = await trx
      .updateTable("share_links")
      .set({ revoked_at: nowIso() })
      .where("id", "=", id)
      .where("workspace_id", "=", ctx.workspaceId)
      .where("revoked_at", "is", null)
      .returning("generation_id")
      .executeTakeFirst();
    // Revoking again changes nothing, and records nothing.
    if (revoked)
      await recordAudit(trx, ctx, {
        workspaceId: ctx.workspaceId,
        action: "share_link.revoked",
        target: { type: "share_link", id },
        changes: { run_id: revoked.generation_id },
      });
  });
  const row = await selectLinks(ctx.db)
    .where("share_links.id", "=", id)
    .where("share_links.workspace_id", "=", ctx.workspaceId)
    .executeTakeFirst();
  if (!row) throw new ApiError("resource_not_found", `No share link ${id} in this workspace.`, { param: "id" });
  return present(row);
}

function fieldTitle(name: string, schema: JsonSchemaObject | undefined): string {
  const title = schema && typeof schema.title === "string" ? schema.title : null;
  if (title) return title;
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function fieldValue(value: unknown): string {
  if (typeof value === "string") return /^file_[0-9A-Za-z]+$/.test(value) ? "An uploaded file" : value;
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "number") return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number"))
    return value.map((v) => fieldValue(v)).join(", ");
  return JSON.stringify(value);
}

const PROMPT_NAMES = ["prompt", "text", "script", "lyrics", "description", "title"];

/** The input as a reader sees it: the schema's order and titles, the first free text field as the prompt. */
function sharedInput(
  model: string,
  input: Record<string, unknown>,
): { prompt: SharedField | null; details: SharedField[] } {
  const schema = allCatalogEntries().find((d) => d.id === model)?.input_schema;
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchemaObject>;
  const names = [
    ...Object.keys(properties).filter((n) => n in input),
    ...Object.keys(input).filter((n) => !(n in properties)),
  ];
  const isFree = (name: string) => {
    const value = input[name];
    return (
      typeof value === "string" &&
      value.trim() !== "" &&
      !properties[name]?.enum &&
      fieldValue(value) === value &&
      !/^(https?:|data:)/.test(value)
    );
  };
  // The prompt: a field named like one, else the first free text in the schema's order.
  const promptName = PROMPT_NAMES.find((n) => n in input && isFree(n)) ?? names.find(isFree) ?? null;
  let prompt: SharedField | null = null;
  const details: SharedField[] = [];
  for (const name of names) {
    const value = input[name];
    if (value === null || value === undefined || value === "") continue;
    const field = { name, title: fieldTitle(name, properties[name]), value: fieldValue(value) };
    if (name === promptName) prompt = field;
    else details.push(field);
  }
  return { prompt, details };
}

/** "atelier/gradient@2", 0, "image/png" → "gradient-1.png": the model and the output, nothing of the run. */
function sharedDownloadName(model: string, index: number, contentType: string): string {
  const name = (model.split("/").pop() ?? model).split("@")[0] || "output";
  return `${name}-${index + 1}.${fileExtensionOf(contentType)}`;
}

function sharedOutput(
  secretKey: string,
  shareId: string,
  model: string,
  output: StoredOutput,
  index: number,
): SharedOutput {
  // Same-origin links, the page works on whatever address it was opened at. They carry the share
  // link's ID, so the blob door stops answering them once it is revoked or expired; on a bucket
  // too (the door streams from it), where a presigned bucket URL could not be taken back.
  const signing = { secret: secretKey, baseUrl: "", share: shareId };
  const link = (blob: string, contentType: string, filename?: string) =>
    signBlobLink(filename ? { ...signing, filename } : signing, blob, contentType);
  const item: SharedOutput = {
    type: output.type,
    url: link(output.blob, output.content_type).url,
    download_url: link(output.blob, output.content_type, sharedDownloadName(model, index, output.content_type)).url,
    content_type: output.content_type,
  };
  if (output.width !== undefined) item.width = output.width;
  if (output.height !== undefined) item.height = output.height;
  if (output.duration !== undefined) item.duration = output.duration;
  if (output.vertices !== undefined) item.vertices = output.vertices;
  if (output.triangles !== undefined) item.triangles = output.triangles;
  if (output.bounding_box !== undefined) item.bounding_box = output.bounding_box;
  if (output.poster) {
    item.poster = {
      url: link(output.poster.blob, output.poster.content_type).url,
      width: output.poster.width,
      height: output.poster.height,
    };
  }
  return item;
}

/**
 * The public page's read: no session, no workspace, only the token. Counts the open. Anything
 * but a live link (forged, garbage, unknown, revoked, expired) is one and the same not found.
 */
export async function readSharedRun(
  deps: { db: Db; services: Pick<Services, "secretKey" | "blobs"> },
  input: { token: unknown; now?: Date },
): Promise<SharedRun> {
  if (!isSignedShareToken(deps.services.secretKey, input.token)) throw notFound();
  const now = (input.now ?? new Date()).toISOString();
  const link = await deps.db
    .updateTable("share_links")
    .set((eb) => ({ open_count: eb("open_count", "+", 1), last_opened_at: now }))
    .where("token_hash", "=", hashToken(input.token))
    .where("revoked_at", "is", null)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
    .returning(["id", "workspace_id", "generation_id", "show_input"])
    .executeTakeFirst();
  if (!link) throw notFound();
  const run = await deps.db
    .selectFrom("generations")
    .select(["model", "modality", "input_json", "output_json", "completed_at", "outputs_purged_at"])
    .where("id", "=", link.generation_id)
    .where("workspace_id", "=", link.workspace_id)
    .where("status", "=", "succeeded")
    .executeTakeFirst();
  if (!run) throw notFound();
  const entry = allCatalogEntries().find((d) => d.id === run.model);
  const shown =
    Number(link.show_input) === 1
      ? sharedInput(run.model, JSON.parse(run.input_json) as Record<string, unknown>)
      : null;
  return {
    model: run.model,
    model_name: entry?.name ?? run.model,
    modality: run.modality,
    prompt: shown?.prompt ?? null,
    details: shown?.details ?? null,
    outputs: (JSON.parse(run.output_json) as StoredOutput[]).map((o, i) =>
      sharedOutput(deps.services.secretKey, link.id, run.model, o, i),
    ),
    completed_at: run.completed_at,
    outputs_purged_at: run.outputs_purged_at ?? null,
  };
}

/**
 * Whether a share link still opens (not revoked, not expired): the blob door asks before serving
 * bytes through a link minted for that share's page. Only such links pay for this read.
 */
export async function isShareLinkLive(db: Db, id: string, now = new Date()): Promise<boolean> {
  if (!hasIdPrefix("shareLink", id) || !isPossibleId(id)) return false;
  const row = await db
    .selectFrom("share_links")
    .select("id")
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now.toISOString())]))
    .executeTakeFirst();
  return row !== undefined;
}

/** Ops: the latest links of every workspace, who made them and whether they still work (an ops principal only). */
export async function listShareLinksForOps(ctx: OpsCtx, options: { limit?: number } = {}): Promise<OpsShareLink[]> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  const rows = await selectLinks(ctx.db)
    .innerJoin("workspaces", "workspaces.id", "share_links.workspace_id")
    .innerJoin("generations", "generations.id", "share_links.generation_id")
    .select(["workspaces.name as workspace_name", "generations.model as model"])
    .orderBy("share_links.created_at", "desc")
    .orderBy("share_links.id", "desc")
    .limit(limit)
    .execute();
  const now = Date.now();
  return rows.map((r) => ({
    ...present(r, now),
    workspace_id: r.workspace_id,
    workspace_name: r.workspace_name,
    model: r.model,
  }));
}
