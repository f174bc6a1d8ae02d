// Row types of every table, as Kysely sees them. Timestamps are ISO 8601 UTC text with
// milliseconds in both dialects, so they sort as text and read back unchanged.
import type { Generated, Kysely, Transaction } from "kysely";

export interface WorkspacesTable {
  id: string;
  name: string;
  created_at: string;
  /** 1 when creators may make API keys of their own (migration 021). */
  creator_keys: Generated<number>;
  /** Its share of the queue against other workspaces' (migration 030): 2 starts twice as many runs. */
  queue_weight: Generated<number>;
  /** At most this many of its runs running at once; null: no cap (migration 030). */
  max_running: Generated<number | null>;
}

export interface WorkspaceQueueTable {
  workspace_id: string;
  /** The fair tag of its last queued run (migration 030). */
  last_tag: number | string;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  key_hash: string;
  /** What a person may see of the key later: its prefix and last four characters. */
  key_hint: string;
  scopes: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /** The member who made the key in the studio (it acts with at most their role); null: the admin CLI. */
  created_by: string | null;
}

export interface CreditBalancesTable {
  workspace_id: string;
  available_micros: number;
  held_micros: number;
  granted_micros: number;
  charged_micros: number;
  /** The low-balance alert's threshold; null: no alert (migration 026). */
  low_credit_micros: Generated<number | null>;
  /** 1 while the alert may fire; 0 from a claim until a grant or a new threshold re-arms it. */
  low_credit_armed: Generated<number>;
}

export type HoldStatus = "held" | "released" | "charged";

export interface CreditHoldsTable {
  id: string;
  workspace_id: string;
  amount_micros: number;
  status: HoldStatus;
  created_at: string;
  settled_at: string | null;
}

export type LedgerKind = "grant" | "hold" | "release" | "charge";

export interface LedgerEntriesTable {
  id: string;
  workspace_id: string;
  kind: LedgerKind;
  amount_micros: number;
  hold_id: string | null;
  note: string | null;
  created_at: string;
}

export interface RateLimitsTable {
  key: string;
  points: Generated<number>;
  expire: number | null;
}

export type GenerationStatus = "queued" | "running" | "succeeded" | "failed" | "canceled";

export interface GenerationsTable {
  id: string;
  workspace_id: string;
  model: string;
  model_base: string;
  modality: string;
  revision: string;
  status: GenerationStatus;
  provider: string | null;
  input_json: string;
  output_json: string;
  preview_json: string | null;
  /** Why cancel answers 409: "preview" or "provider"; null while cancel can still stop it. */
  uncancelable_reason: string | null;
  error_message: string | null;
  price_micros: number;
  charged_micros: number | null;
  hold_id: string | null;
  source: string;
  batch_id: string | null;
  /** Position in its batch's `requests`. */
  batch_index: number | null;
  webhook: string | null;
  /** The actor that started it: a studio user's ID (usr_…) or an API key's (key_…); null before migration 008. */
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  attempts: number;
  /** The queue's order: set by the store on insert (migration 011); absent from a row not yet read back. */
  queue_order?: number | string | null;
  /** When output retention emptied its outputs (migration 020); null or absent: never. */
  outputs_purged_at?: string | null;
  /**
   * What a succeeded run cost upstream, beside what it was charged (migration 027); null or
   * absent: not known (a built-in model, an entry without `cost`). Ops-only: never presented.
   */
  provider_cost_micros?: number | string | null;
  /** 0 interactive (the studio, MCP, a create that waits), 1 bulk (batches, plain API creates); migration 030. */
  lane?: number;
  /** The fair queue's tag, set by the store when the run is queued (migration 030); absent from a row not yet read back. */
  fair_tag?: number | string | null;
  /** A routed entry's attempts, JSON (RouteAttempt[]; migration 031); null or absent: one target. Never presented publicly. */
  route_attempts_json?: string | null;
  /** The W3C trace context of the span that created it (migration 032); its execution continues that trace. Null or absent: none. */
  traceparent?: string | null;
}

/** The columns given, checked by the compiler to be every column of T: an error names one left out. */
const everyColumnOf =
  <T>() =>
  <const C extends readonly (keyof T)[]>(
    columns: C & ([Exclude<keyof T, C[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, C[number]> }),
  ): C =>
    columns;

/**
 * Every column of generations, for a statement that reads a whole run back and is planned once
 * (lib/store/dialects.ts, planOnce): PostgreSQL refuses a kept `returning *` once the table has
 * gained a column.
 */
export const GENERATIONS_COLUMNS = everyColumnOf<GenerationsTable>()([
  "id",
  "workspace_id",
  "model",
  "model_base",
  "modality",
  "revision",
  "status",
  "provider",
  "input_json",
  "output_json",
  "preview_json",
  "uncancelable_reason",
  "error_message",
  "price_micros",
  "charged_micros",
  "hold_id",
  "source",
  "batch_id",
  "batch_index",
  "webhook",
  "created_by",
  "created_at",
  "started_at",
  "completed_at",
  "lease_owner",
  "lease_expires_at",
  "attempts",
  "queue_order",
  "outputs_purged_at",
  "provider_cost_micros",
  "lane",
  "fair_tag",
  "route_attempts_json",
  "traceparent",
]);

export interface WebhookSecretsTable {
  workspace_id: string;
  secret: string;
  previous_secret: string | null;
  previous_expires_at: string | null;
  created_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  description: string;
  event_types_json: string;
  enabled: number;
  disabled_reason: string | null;
  failing_since: string | null;
  /** The latest failed attempt while failing; null while healthy. */
  last_failure_at: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = "pending" | "succeeded" | "failed";

export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  event_id: string;
  webhook_id: string | null;
  url: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  at: string;
  response_status: number | null;
  latency_ms: number;
  response_body: string;
  error: string | null;
}

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  /** The workspace a new sign-in opens: the last one the user switched to. */
  workspace_id: string;
  /** 1 when the user operates the install (every workspace, models, credit grants); else 0. */
  is_ops: number;
  created_at: string;
  /** What they call themselves (given when accepting an invitation); null for users made otherwise. */
  name?: string | null;
}

/** An invitation to a workspace (migration 022); the token is kept only as its hash. */
export interface InvitationsTable {
  id: string;
  workspace_id: string;
  email: string;
  role: "owner" | "admin" | "creator" | "viewer";
  token_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
}

/** One change, as the audit log keeps it (migration 023, lib/core/audit/); never updated. */
export interface AuditEventsTable {
  id: string;
  /** null: the install's own (a model pause, a user's password or ops flag). */
  workspace_id: string | null;
  action: string;
  actor_type: "user" | "key" | "cli";
  /** usr_…, key_…, or "cli". */
  actor_id: string;
  /** A user actor's email when the change was made. */
  actor_email: string | null;
  target_type: string;
  target_id: string;
  ip: string | null;
  changes_json: string;
  created_at: string;
}

/** A user's role in one workspace (migration 021). */
export interface MembershipsTable {
  workspace_id: string;
  user_id: string;
  role: "owner" | "admin" | "creator" | "viewer";
  created_at: string;
  /** When a session of the user last read this membership (moved at most every few minutes). */
  last_seen_at: string | null;
}

export interface StudioSessionsTable {
  id: string;
  user_id: string;
  /** The workspace the session is in; null only for sessions older than migration 021. */
  workspace_id: string | null;
  created_at: string;
  /** Fixed at sign-in: a session does not slide past it, however active. */
  expires_at: string;
}

export interface ModelPausesTable {
  model_id: string;
  paused_until: string | null;
  reason: string;
  created_at: string;
  /** Who paused it ("admin CLI", or a studio ops user's email); null before migration 014. */
  paused_by?: string | null;
}

/** A remote provider found down by some process; its entries are out of service until `down_until`. */
export interface ProviderOutagesTable {
  provider_id: string;
  down_until: string;
  reason: string;
  updated_at: string;
}

export interface ScheduledTasksTable {
  name: string;
  due_at: string;
  runs: Generated<number>;
  last_run_at: string | null;
  last_run_by: string | null;
}

/** Blobs of purged outputs, deleted after the purge committed (migration 020). */
export interface BlobDeletionsTable {
  blob: string;
  generation_id: string;
  queued_at: string;
}

/** Where a purge walk stopped (migration 020). */
export interface RetentionMarksTable {
  name: string;
  completed_at: string;
  id: string;
}

/** Queued runs per stretch of queue orders (migration 016), kept by triggers. */
export interface QueueCountsTable {
  bucket: number | string;
  queued: number | string;
}

export interface BatchesTable {
  id: string;
  workspace_id: string;
  source: string;
  created_at: string;
}

export interface IdempotencyKeysTable {
  workspace_id: string;
  key: string;
  endpoint: string;
  request_hash: string;
  resource_id: string;
  created_at: string;
}

export interface EventsTable {
  id: string;
  workspace_id: string;
  type: string;
  generation_id: string | null;
  payload_json: string;
  created_at: string;
}

export interface FilesTable {
  id: string;
  workspace_id: string;
  blob: string;
  content_type: string;
  bytes: number;
  width: number | null;
  height: number | null;
  duration: number | null;
  filename: string | null;
  generation_id: string | null;
  output_index: number | null;
  created_at: string;
}

export type UploadStatus = "pending" | "completed";

export interface UploadsTable {
  id: string;
  workspace_id: string;
  filename: string;
  content_type: string;
  declared_bytes: number;
  received_bytes: number | null;
  blob: string | null;
  status: UploadStatus;
  file_id: string | null;
  created_at: string;
  expires_at: string;
  completed_at: string | null;
}

/** A public link to one succeeded run (lib/core/shares/share-links.ts); only the token's hash is kept. */
export interface ShareLinksTable {
  id: string;
  workspace_id: string;
  generation_id: string;
  token_hash: string;
  /** The token's last four characters. */
  token_hint: string;
  /** 1: the public page shows the run's input; 0: only the outputs. */
  show_input: number;
  /** The actor that made it: a studio user's ID (usr_…) or an API key's (key_…). */
  created_by: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  open_count: number;
  last_opened_at: string | null;
}

export type BudgetScope = "workspace" | "member" | "key";

/** A cap on a workspace's, a member's or a key's spend (migration 024, lib/core/budgets/); null: no cap for that period. */
export interface BudgetsTable {
  workspace_id: string;
  scope: BudgetScope;
  /** The workspace's ID, the member's user ID or the key's ID. */
  subject_id: string;
  daily_micros: number | null;
  monthly_micros: number | null;
  updated_at: string;
}

/** What a budget's runs of one UTC day or month hold and were charged (migration 024). */
export interface BudgetSpendTable {
  workspace_id: string;
  scope: BudgetScope;
  subject_id: string;
  period: "day" | "month";
  /** "YYYY-MM-DD": the day, or the month's first day. */
  period_start: string;
  spent_micros: number;
  cap_micros: number;
  grew: number;
}

/** A threshold a budget counter reached (migration 025); event_id is null until announced. */
export interface BudgetAlertsTable {
  workspace_id: string;
  scope: BudgetScope;
  subject_id: string;
  period: "day" | "month";
  period_start: string;
  threshold: number;
  spent_micros: number;
  cap_micros: number;
  event_id: string | null;
}

/** A low-balance alert claimed by the balance's trigger (migration 026); event_id is null until announced. */
export interface CreditAlertsTable {
  id: Generated<number>;
  workspace_id: string;
  /** The available balance when it dropped under the threshold. */
  available_micros: number;
  threshold_micros: number;
  created_at: string;
  event_id: string | null;
}

export interface RemoteProvidersTable {
  id: string;
  kind: string;
  /** The provider's settings as the providers file holds them, without `entries`. */
  settings_json: string;
  /** A pasted key, encrypted (lib/primitives/secret-box.ts); null: `api_key_env` or none. */
  secret_ciphertext: string | null;
  source: "file" | "ops";
  /** The settings the providers file gave when last applied; null: not from the file. */
  file_json: string | null;
  created_at: string;
  updated_at: string;
}

export interface RemoteEntriesTable {
  id: string;
  provider_id: string;
  /** The entry as the providers file holds it (a ComfyUI workflow inline). */
  document_json: string;
  state: "draft" | "published";
  revision: string;
  source: "file" | "ops";
  file_json: string | null;
  created_at: string;
  updated_at: string;
}

export interface RemoteEntryRevisionsTable {
  entry_id: string;
  revision: string;
  document_json: string;
  created_at: string;
}

export interface CatalogVersionTable {
  id: number;
  version: number;
}

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  credit_balances: CreditBalancesTable;
  credit_holds: CreditHoldsTable;
  ledger_entries: LedgerEntriesTable;
  rate_limits: RateLimitsTable;
  generations: GenerationsTable;
  batches: BatchesTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  files: FilesTable;
  uploads: UploadsTable;
  model_pauses: ModelPausesTable;
  provider_outages: ProviderOutagesTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  invitations: InvitationsTable;
  audit_events: AuditEventsTable;
  budgets: BudgetsTable;
  budget_spend: BudgetSpendTable;
  budget_alerts: BudgetAlertsTable;
  credit_alerts: CreditAlertsTable;
  studio_sessions: StudioSessionsTable;
  share_links: ShareLinksTable;
  scheduled_tasks: ScheduledTasksTable;
  queue_counts: QueueCountsTable;
  workspace_queue: WorkspaceQueueTable;
  blob_deletions: BlobDeletionsTable;
  retention_marks: RetentionMarksTable;
  remote_providers: RemoteProvidersTable;
  remote_entries: RemoteEntriesTable;
  remote_entry_revisions: RemoteEntryRevisionsTable;
  catalog_version: CatalogVersionTable;
}

/** A database handle or an open transaction on it; core functions accept either. */
export type Db = Kysely<Database> | Transaction<Database>;
