// Lists of writes committed together (lib/store/write-groups.ts) mostly have one shape: a group of
// creates writes the same statements, each with its own values. Sent one by one, each insert
// costs a statement (PostgreSQL parses, binds and starts an executor; SQLite steps a statement
// and Node crosses into it) for one row. Here the lists of one shape become one insert of many
// rows per statement, in the lists' order, so each list's rows are still written in its own
// order (a run after its hold) and a group of N creates sends a handful of statements, not 5 N.
// A statement that adds an amount to counters (addingFirstParameter) is sent once per distinct
// set of its other parameters, adding the lists' amounts together: a group of creates by one key
// moves its budgets' counters once. All or none holds: past a cap, the group fails and each list
// is applied alone (lib/store/write-groups.ts).
import { CompiledQuery } from "kysely";

const ADDS = "/* adds its first parameter */ ";

/** Marks a statement whose first parameter (an integer) is an amount it adds, and nothing else. */
export function addingFirstParameter(query: CompiledQuery): CompiledQuery {
  return CompiledQuery.raw(ADDS + query.sql, [...query.parameters]);
}

/** The lists' k-th statements (one adding statement), one per distinct other parameters, amounts summed. */
function summedStatements(lists: readonly (readonly CompiledQuery[])[], k: number): CompiledQuery[] {
  const bySubject = new Map<string, unknown[]>();
  for (const list of lists) {
    const [amount, ...rest] = list[k]!.parameters;
    const subject = JSON.stringify(rest);
    const same = bySubject.get(subject);
    if (same) same[0] = (same[0] as number) + (amount as number);
    else bySubject.set(subject, [amount, ...rest]);
  }
  // A copy of the first (its marks too, such as planOnce's) with each subject's parameters.
  const first = lists[0]![k]!;
  return [...bySubject.values()].map((parameters) => ({ ...first, parameters }));
}

/** `insert into "t" ("a", "b") values ($1, $2)` or `(?, ?)`: one row, every value a parameter. */
const ONE_ROW_INSERT = /^insert into "[^"]+" \([^()]*\) values \(((?:\$\d+|\?)(?:, (?:\$\d+|\?))*)\)$/;

/** The one-row insert's text up to its values, and how many values a row has; null for anything else. */
function oneRowInsert(query: CompiledQuery): { head: string; width: number } | null {
  const match = ONE_ROW_INSERT.exec(query.sql);
  if (!match) return null;
  const width = match[1]!.split(", ").length;
  if (width !== query.parameters.length) return null;
  return { head: query.sql.slice(0, query.sql.length - match[1]!.length - 2), width };
}

function rowsOf(width: number, rows: number, postgres: boolean): string {
  const tuples: string[] = [];
  for (let row = 0; row < rows; row++) {
    const values: string[] = [];
    for (let i = 1; i <= width; i++) values.push(postgres ? `$${row * width + i}` : "?");
    tuples.push(`(${values.join(", ")})`);
  }
  return tuples.join(", ");
}

/** The k-th statement of each of `lists` (the same text in all), as one statement. */
function mergedStatement(lists: readonly (readonly CompiledQuery[])[], k: number, postgres: boolean): CompiledQuery[] {
  const first = lists[0]![k]!;
  if (first.sql.startsWith(ADDS)) return summedStatements(lists, k);
  const insert = oneRowInsert(first);
  if (!insert) return lists.map((list) => list[k]!);
  const parameters: unknown[] = [];
  for (const list of lists) parameters.push(...list[k]!.parameters);
  return [CompiledQuery.raw(`${insert.head}${rowsOf(insert.width, lists.length, postgres)}`, parameters)];
}

/**
 * Every list's statements, in order, lists of the same shape (the same statement texts) merged:
 * each plain one-row insert of theirs becomes one insert of all their rows, and any other
 * statement is sent once per list where it stands. Lists of one shape go together, shapes in
 * the order they first appear.
 */
export function mergeSameShapeLists(lists: readonly (readonly CompiledQuery[])[], postgres: boolean): CompiledQuery[] {
  const shapes = new Map<string, (readonly CompiledQuery[])[]>();
  for (const list of lists) {
    const shape = list.map((query) => query.sql).join("\u0000");
    const same = shapes.get(shape);
    if (same) same.push(list);
    else shapes.set(shape, [list]);
  }
  const merged: CompiledQuery[] = [];
  for (const same of shapes.values()) {
    if (same.length === 1) {
      merged.push(...same[0]!);
      continue;
    }
    for (let k = 0; k < same[0]!.length; k++) merged.push(...mergedStatement(same, k, postgres));
  }
  return merged;
}
