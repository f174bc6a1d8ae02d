// Every page of a history filter, from the first to the last, as a client pages with next_cursor.
import type { CursorPosition } from "../../primitives/cursor";
import type { Db, GenerationsTable } from "../../store/database";
import { historyPage, type HistoryFilter } from "../runs/history-query";

/** The pages of `take` runs each (a page may be shorter where a walk reached `bound`). */
export async function historyPages(
  db: Db,
  filter: HistoryFilter,
  take: number,
  bound: number,
): Promise<GenerationsTable[][]> {
  const pages: GenerationsTable[][] = [];
  let after: CursorPosition | null = null;
  for (let guard = 0; guard < 5000; guard++) {
    const { rows, stoppedAt } = await historyPage(db, filter, after, take + 1, bound);
    const page = rows.slice(0, take);
    pages.push(page);
    const last = page[page.length - 1];
    after = rows.length > take && last ? { t: last.created_at, i: last.id } : stoppedAt;
    if (!after) return pages;
  }
  throw new Error("paging never ended");
}
