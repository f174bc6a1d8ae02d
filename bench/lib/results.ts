// One row per figure: its value, the baseline measured in the same run, the ratio and the target.
// Printed as a table and written to bench/results.json.
import { writeFileSync } from "node:fs";
import path from "node:path";

export interface Row {
  scenario: string;
  figure: string;
  unit: string;
  /** null when the scenario could not measure it (then `note` says why). */
  value: number | null;
  /** The same figure for the bare node:http server (or the stated reference), or null. */
  baseline: number | null;
  ratio: number | null;
  target: string;
  /** true/false against the target; null when the row has no target of its own or was skipped. */
  pass: boolean | null;
  note?: string;
}

export function ratioOf(value: number | null, baseline: number | null): number | null {
  if (value === null || baseline === null || baseline === 0) return null;
  return value / baseline;
}

function fmt(n: number | null, unit = ""): string {
  if (n === null || !Number.isFinite(n)) return "–";
  const digits = Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2;
  return `${n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })}${unit ? " " + unit : ""}`;
}

export function verdict(row: Row): string {
  if (row.value === null) return "skipped";
  return row.pass === null ? "info" : row.pass ? "pass" : "FAIL";
}

/** A Markdown table (readable in a terminal, pasted as is into docs/performance.md). */
export function formatTable(rows: Row[]): string {
  const lines = [
    "| scenario | figure | value | baseline | ratio | target | result |",
    "| - | - | -: | -: | -: | - | - |",
  ];
  for (const r of rows) {
    const ratio = r.ratio === null ? "–" : `${(r.ratio * 100).toFixed(0)} %`;
    const result = verdict(r) + (r.note ? ` (${r.note})` : "");
    lines.push(
      `| ${r.scenario} | ${r.figure} | ${fmt(r.value, r.unit)} | ${fmt(r.baseline, r.unit)} | ${ratio} | ${r.target} | ${result} |`,
    );
  }
  return lines.join("\n");
}

export function writeResults(file: string, meta: Record<string, unknown>, rows: Row[]): void {
  const out = {
    ...meta,
    rows: rows.map((r) => ({ ...r, result: verdict(r) })),
  };
  writeFileSync(path.resolve(file), JSON.stringify(out, null, 2) + "\n");
}
