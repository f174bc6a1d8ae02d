// The workspace's default signing secret: made on first use, rotated on request. After a
// rotation the previous secret keeps signing for 24 hours, so receivers can switch without
// dropping a delivery.
import type { Db, WebhookSecretsTable } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { newWebhookSecret } from "./signing";
import { nowIso, type Ctx } from "../context";
import { requireWebhookAdmin } from "./webhook-admin";
import type { WebhookSecret } from "./webhook-shape";
import { recordAudit } from "../audit/audit-writer";

export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export type { WebhookSecret };

/** The workspace's secret row, made on first use (two processes racing make one). */
export async function ensureWebhookSecret(db: Db, workspaceId: string): Promise<WebhookSecretsTable> {
  const found = await db
    .selectFrom("webhook_secrets")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  if (found) return found;
  await db
    .insertInto("webhook_secrets")
    .values({
      workspace_id: workspaceId,
      secret: newWebhookSecret(),
      previous_secret: null,
      previous_expires_at: null,
      created_at: nowIso(),
    })
    .onConflict((oc) => oc.column("workspace_id").doNothing())
    .execute();
  return db.selectFrom("webhook_secrets").selectAll().where("workspace_id", "=", workspaceId).executeTakeFirstOrThrow();
}

function present(row: WebhookSecretsTable, now = Date.now()): WebhookSecret {
  const live = row.previous_expires_at !== null && Date.parse(row.previous_expires_at) > now;
  return { object: "webhook_secret", secret: row.secret, previous_expires_at: live ? row.previous_expires_at : null };
}

/** The secrets a delivery is signed with now: the current one, and the previous one while it overlaps. */
export async function signingSecrets(db: Db, workspaceId: string, now = Date.now()): Promise<string[]> {
  const row = await ensureWebhookSecret(db, workspaceId);
  const overlap =
    row.previous_secret !== null && row.previous_expires_at !== null && Date.parse(row.previous_expires_at) > now;
  return overlap ? [row.secret, row.previous_secret!] : [row.secret];
}

/** GET /v1/webhooks/default/secret */
export async function getDefaultWebhookSecret(ctx: Ctx): Promise<WebhookSecret> {
  requireWebhookAdmin(ctx);
  return present(await ensureWebhookSecret(ctx.db, ctx.workspaceId));
}

/** POST /v1/webhooks/default/secret/rotate */
export async function rotateDefaultWebhookSecret(ctx: Ctx): Promise<WebhookSecret> {
  requireWebhookAdmin(ctx);
  await ensureWebhookSecret(ctx.db, ctx.workspaceId);
  return withTransaction(ctx.db, async (trx) => {
    const current = await trx
      .selectFrom("webhook_secrets")
      .selectAll()
      .where("workspace_id", "=", ctx.workspaceId)
      .executeTakeFirstOrThrow();
    const row = await trx
      .updateTable("webhook_secrets")
      .set({
        secret: newWebhookSecret(),
        previous_secret: current.secret,
        previous_expires_at: new Date(Date.now() + ROTATION_OVERLAP_MS).toISOString(),
      })
      .where("workspace_id", "=", ctx.workspaceId)
      .where("secret", "=", current.secret)
      .returningAll()
      .executeTakeFirstOrThrow();
    // That it rotated and until when the previous one signs; never either secret.
    await recordAudit(trx, ctx, {
      workspaceId: ctx.workspaceId,
      action: "webhook.secret_rotated",
      target: { type: "workspace", id: ctx.workspaceId },
      changes: { previous_signs_until: row.previous_expires_at },
    });
    return present(row);
  });
}
