// An audit event as the API shows it (GET /v1/audit-events): the one source of its type and of the
// document's component (lib/primitives/api-shape.ts).
import { z } from "zod";
import { closed, pagedList, prefixedId, timestamp } from "../../primitives/api-shape";
import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, AUDIT_TARGET_TYPES } from "./audit-actions";

export const AuditActorShape = closed({
  type: z
    .enum(AUDIT_ACTOR_TYPES)
    .meta({ description: "A studio user, an API key (the API and MCP), or the admin CLI." }),
  id: z.string().meta({ description: "The user's ID (`usr_…`), the key's (`key_…`), or `\"cli\"`." }),
  email: z.string().optional().meta({ description: "A user's email when the change was made." }),
});

export const AuditEventShape = closed({
  id: prefixedId("auditEvent"),
  object: z.literal("audit_event"),
  action: z.enum(AUDIT_ACTIONS),
  actor: AuditActorShape,
  target: closed({ type: z.enum(AUDIT_TARGET_TYPES), id: z.string() }),
  ip: z
    .string()
    .nullable()
    .meta({ description: "The address the change came from as the server saw it; null for the admin CLI." }),
  changes: z
    .record(z.string(), z.unknown())
    .meta({ description: "What changed (`{from, to}` for a changed value); never a secret, key or token." }),
  created_at: timestamp,
});

export const AuditEventListShape = pagedList(AuditEventShape);

export type AuditActor = z.infer<typeof AuditActorShape>;
export type AuditEvent = z.infer<typeof AuditEventShape>;
export type AuditEventList = z.infer<typeof AuditEventListShape>;
