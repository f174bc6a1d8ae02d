// Rotating SECRET_KEY: the providers' pasted keys are sealed under a key derived from it, so a new
// SECRET_KEY alone would leave them unreadable (their providers then leave the catalog with a
// warning). `admin provider rekey --old-secret-key-env NAME` opens each with the old SECRET_KEY and
// seals it under the current one, all in one transaction: every key moves, or none does.
import { ApiError } from "../../primitives/errors";
import { openSecret, sealSecret, SecretBoxError } from "../../primitives/secret-box";
import { withTransaction } from "../../store/writes";
import { nowIso } from "../../core/context";
import { recordAudit } from "../../core/audit/audit-writer";
import {
  lockCatalog,
  readRemoteProviders,
  remoteCatalogChanged,
  updateProviderRow,
} from "../../core/catalog/remote-store";
import { providerAudit } from "./catalog-audit";
import { catalogAuditBy, type CatalogCtx, providerSecretPurpose } from "./catalog-verbs";

/** Re-seals every stored key from `oldSecretKey` to ctx.secretKey; keys already under the current one are left. */
export async function rekeyStoredSecrets(
  ctx: CatalogCtx,
  input: { oldSecretKey: string },
): Promise<{ rekeyed: string[]; already: string[] }> {
  const result = await withTransaction(ctx.db, async (trx) => {
    await lockCatalog(trx);
    const rekeyed: string[] = [];
    const already: string[] = [];
    for (const row of await readRemoteProviders(trx)) {
      if (row.secret_ciphertext === null) continue;
      const purpose = providerSecretPurpose(row.id);
      let plain: string;
      try {
        plain = openSecret(input.oldSecretKey, purpose, row.secret_ciphertext);
      } catch (err) {
        if (!(err instanceof SecretBoxError)) throw err;
        try {
          openSecret(ctx.secretKey, purpose, row.secret_ciphertext);
          already.push(row.id);
          continue;
        } catch {
          throw new ApiError(
            "invalid_parameter",
            `The stored key of provider ${row.id} opens with neither the old nor the current SECRET_KEY; nothing was changed. Set its key again with \`provider edit ${row.id} --api-key-stdin\`.`,
            { param: "old-secret-key-env" },
          );
        }
      }
      const next = { secret_ciphertext: sealSecret(ctx.secretKey, purpose, plain), updated_at: nowIso() };
      await updateProviderRow(trx, row.id, next);
      await recordAudit(
        trx,
        catalogAuditBy(ctx),
        providerAudit("provider.edited", row.id, row, { ...row, ...next }, { rekeyed: true }),
      );
      rekeyed.push(row.id);
    }
    return { rekeyed, already };
  });
  if (result.rekeyed.length > 0) remoteCatalogChanged(ctx.db);
  return result;
}
