// The plans of the statements a read sends, so a test can say which index a read walks.
import { CompiledQuery, createQueryId, sql, type RootOperationNode } from "kysely";
import type { Db } from "../database";
import { testDialect } from "./test-store";

/**
 * The plans of the statements `read` sends, one text each (SQLite's EXPLAIN QUERY PLAN,
 * PostgreSQL's EXPLAIN). PostgreSQL is told sequential scans cost too much, so that on a test's
 * few rows it plans as it would on many.
 */
export async function plansOf(db: Db, read: (db: Db) => Promise<unknown>): Promise<string[]> {
  const nodes: RootOperationNode[] = [];
  await read(
    db.withPlugin({
      transformQuery: (args) => (nodes.push(args.node), args.node),
      transformResult: async (args) => args.result,
    }),
  );
  const statements = nodes
    .map((node) => db.getExecutor().compileQuery(node, createQueryId()))
    // A session setting (a read's statement_timeout) has no plan.
    .filter((statement) => !/^\s*(set|reset)\s/i.test(statement.sql));
  const postgres = testDialect() === "postgres";
  return db.connection().execute(async (connection) => {
    if (postgres) await sql`set enable_seqscan = off`.execute(connection);
    try {
      const plans: string[] = [];
      for (const statement of statements) {
        const explain = postgres ? "explain " : "explain query plan ";
        const { rows } = await connection.executeQuery(
          CompiledQuery.raw(explain + statement.sql, [...statement.parameters]),
        );
        plans.push(rows.map((row) => Object.values(row as object).join(" ")).join("\n"));
      }
      return plans;
    } finally {
      if (postgres) await sql`reset enable_seqscan`.execute(connection);
    }
  });
}

/** A plan line that reads the runs table whole: SQLite's "SCAN generations", PostgreSQL's "Seq Scan on generations". */
export const SCAN_OF_RUNS = /SCAN generations(?! USING)|Seq Scan on generations/;
