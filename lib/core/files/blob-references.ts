// Every blob key the store names: what a copy of the store needs beside it (admin backup,
// lib/boot/backup.ts). Blobs are written before the row that names them commits and deleted only
// after the row stops naming them (output-retention.ts, uploads.ts), so a store read at one
// moment names only blobs that existed then.
import type { Db } from "../../store/database";
import type { StoredOutput, StoredPreview } from "../runs/generation-view";

const PAGE = 1000;

/**
 * The keys named by files, uploads (a pending upload's received bytes) and runs' outputs,
 * posters and previews. Read page by page; give it a store no one writes to (a snapshot) for
 * one moment's answer.
 */
export async function blobsNamedByStore(db: Db): Promise<Set<string>> {
  const keys = new Set<string>();
  for (let after = ""; ;) {
    const rows = await db
      .selectFrom("files")
      .select(["id", "blob"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(PAGE)
      .execute();
    for (const row of rows) keys.add(row.blob);
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.id;
  }
  for (let after = ""; ;) {
    const rows = await db
      .selectFrom("uploads")
      .select(["id", "blob"])
      .where("id", ">", after)
      .where("blob", "is not", null)
      .orderBy("id")
      .limit(PAGE)
      .execute();
    for (const row of rows) keys.add(row.blob!);
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.id;
  }
  for (let after = ""; ;) {
    const rows = await db
      .selectFrom("generations")
      .select(["id", "output_json", "preview_json"])
      .where("id", ">", after)
      .where((eb) => eb.or([eb("output_json", "!=", "[]"), eb("preview_json", "is not", null)]))
      .orderBy("id")
      .limit(PAGE)
      .execute();
    for (const row of rows) {
      for (const output of JSON.parse(row.output_json) as StoredOutput[]) {
        keys.add(output.blob);
        if (output.poster) keys.add(output.poster.blob);
      }
      if (row.preview_json !== null) keys.add((JSON.parse(row.preview_json) as StoredPreview).blob);
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.id;
  }
  return keys;
}
