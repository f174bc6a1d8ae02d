import { sql, type Kysely } from "kysely";
import { onPostgres } from "../dialects";

// Prompt search as an index read on SQLite (lib/core/runs/history-query.ts): an FTS5 table with the
// trigram tokenizer over each run's input, so that a search of 3+ characters finds its runs without
// reading the runs table. Its rowid is the run's created_at in milliseconds times 2^20 plus the
// low bits of the run's queue order: the index then gives matches in created_at order, which the
// history pages need (queue order alone is insert order, which created_at need not follow). It is
// contentless and keeps only the run's ID beside the trigrams; triggers write it in the run's own
// transaction. PostgreSQL has its own: a pg_trgm GIN index, built online (lib/store/online-indexes.ts).
export const SEARCH_KEY_BITS = 20;

/** The search key of a run row (`row` is "new" or "old" in a trigger, or a table alias). */
export function searchKeySql(row: string): string {
  return `(cast(round(unixepoch(${row}.created_at, 'subsec') * 1000) as integer) * ${2 ** SEARCH_KEY_BITS} + (coalesce(${row}.queue_order, ${row}.rowid) & ${2 ** SEARCH_KEY_BITS - 1}))`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (onPostgres(db)) return;
  await sql`
    create virtual table generations_search using fts5(
      input, run unindexed,
      tokenize = 'trigram', content = '', contentless_delete = 1, contentless_unindexed = 1
    )`.execute(db);
  // Runs are written by many code paths (single runs, batches, imports): triggers see them all.
  await sql
    .raw(
      `create trigger generations_search_insert after insert on generations begin
        insert into generations_search (rowid, input, run) values (${searchKeySql("new")}, new.input_json, new.id);
      end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger generations_search_delete after delete on generations begin
        delete from generations_search where rowid = ${searchKeySql("old")};
      end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger generations_search_update after update of input_json, created_at on generations begin
        delete from generations_search where rowid = ${searchKeySql("old")};
        insert into generations_search (rowid, input, run) values (${searchKeySql("new")}, new.input_json, new.id);
      end`,
    )
    .execute(db);
  await sql
    .raw(
      `insert into generations_search (rowid, input, run)
       select ${searchKeySql("g")}, g.input_json, g.id from generations g`,
    )
    .execute(db);
}
