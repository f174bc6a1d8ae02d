// Statements on a create's path whose SQL never changes, only their values: Kysely builds and
// compiles a query anew each time (its builders, frozen nodes and compiler), so each shape is
// compiled once per kind of store and then given the new values. A shape is reused only when its
// compiled parameters were exactly the values given, in order, and only for plain values: an
// expression among them (an object Kysely would turn into SQL) is compiled as usual.
import type { Compilable, CompiledQuery, Insertable } from "kysely";
import type { Database, Db } from "./database";

const UNREUSABLE = Symbol("compile every time");
const compiledByStore = new Map<unknown, Map<string, CompiledQuery | typeof UNREUSABLE>>();

function isPlainValue(value: unknown): boolean {
  return typeof value !== "object" || value === null || value instanceof Uint8Array;
}

/**
 * `build()`'s query, compiled once per kind of store and `shape` (a name for its SQL), and then
 * sent with `parameters`: the values the query takes, in the order they appear in its SQL.
 */
export function reusedQuery(
  db: Db,
  shape: string,
  parameters: readonly unknown[],
  build: () => Compilable,
): Compilable {
  return {
    compile() {
      const kind = db.getExecutor().adapter.constructor;
      let shapes = compiledByStore.get(kind);
      if (!shapes) compiledByStore.set(kind, (shapes = new Map()));
      const known = shapes.get(shape);
      const plain = parameters.every(isPlainValue);
      if (known && known !== UNREUSABLE && plain) return { ...known, parameters };
      const compiled = build().compile();
      if (known === undefined && plain) {
        const same =
          compiled.parameters.length === parameters.length &&
          compiled.parameters.every((value, i) => value === parameters[i]);
        shapes.set(shape, same ? compiled : UNREUSABLE);
      }
      return compiled;
    },
  };
}

/** An insert of one row, its SQL compiled once per table and list of columns. */
export function insertRow<T extends keyof Database & string>(
  db: Db,
  table: T,
  row: Insertable<Database[T]>,
): Compilable {
  const columns = Object.keys(row);
  const values = Object.values(row) as unknown[];
  return reusedQuery(db, `insert into ${table} (${columns.join()})`, values, () => db.insertInto(table).values(row));
}
