// What the audit log records of a remote-catalog change: the non-secret fields before and after.
// A provider's settings never hold its key (only `api_key_env`, a variable's name), and the key
// itself is told as how it is given ("secret set", "environment variable NAME"), never its value.
// An entry's input schema and workflow are large and name arbitrary fields: the event names the
// fields that changed rather than copying them.
import type { AuditRecord, AuditValue } from "../../core/audit/audit-writer";
import type { RemoteEntryRow, RemoteProviderRow } from "../../core/catalog/remote-store";
import type { JsonObject } from "../common/json-fields";
import { credentialOf, stableJson } from "./documents";

type ProviderAction = "provider.added" | "provider.edited" | "provider.removed" | "provider.applied";
type EntryAction = "entry.published" | "entry.edited" | "entry.deprecated" | "entry.retired";

/** The settings' plain fields (strings, numbers, booleans): URLs, timeouts, the kind's options. */
function providerFacts(row: RemoteProviderRow | null): AuditValue {
  if (!row) return null;
  const settings = JSON.parse(row.settings_json) as JsonObject;
  const facts: Record<string, AuditValue> = {};
  for (const [key, value] of Object.entries(settings))
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") facts[key] = value;
  // "api_key": the audit writer refuses field names that look like credentials, so not "credential".
  facts.api_key = credentialOf(settings, row.secret_ciphertext);
  return facts;
}

export function providerAudit(
  action: ProviderAction,
  id: string,
  before: RemoteProviderRow | null,
  after: RemoteProviderRow | null,
  extra: Record<string, AuditValue> = {},
): AuditRecord {
  return {
    workspaceId: null,
    action,
    target: { type: "provider", id },
    changes: { before: providerFacts(before), after: providerFacts(after), ...extra },
  };
}

const ENTRY_FACTS = ["name", "creator", "modality", "status", "upstream_model"] as const;

function entryFacts(row: RemoteEntryRow | null): AuditValue {
  if (!row) return null;
  const doc = JSON.parse(row.document_json) as JsonObject;
  const facts: Record<string, AuditValue> = { state: row.state, revision: row.revision, provider: row.provider_id };
  for (const key of ENTRY_FACTS) if (typeof doc[key] === "string") facts[key] = doc[key] as string;
  const pricing = doc.pricing as { usd?: unknown; unit?: unknown } | undefined;
  if (pricing && typeof pricing.usd === "string" && typeof pricing.unit === "string")
    facts.price = `${pricing.usd}/${pricing.unit}`;
  const lifecycle = doc.lifecycle as { sunset_at?: unknown; replaced_by?: unknown } | null | undefined;
  facts.sunset_at = typeof lifecycle?.sunset_at === "string" ? lifecycle.sunset_at : null;
  facts.replaced_by = typeof lifecycle?.replaced_by === "string" ? lifecycle.replaced_by : null;
  return facts;
}

/** The document's top-level fields whose value differs between the two rows. */
function changedFields(before: RemoteEntryRow | null, after: RemoteEntryRow | null): AuditValue {
  const a = before ? (JSON.parse(before.document_json) as JsonObject) : {};
  const b = after ? (JSON.parse(after.document_json) as JsonObject) : {};
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((key) => stableJson(a[key]) !== stableJson(b[key]))
    .sort();
}

export function entryAudit(action: EntryAction, before: RemoteEntryRow | null, after: RemoteEntryRow): AuditRecord {
  return {
    workspaceId: null,
    action,
    target: { type: "model", id: after.id },
    changes: { before: entryFacts(before), after: entryFacts(after), fields_changed: changedFields(before, after) },
  };
}
