// GET /v1/usage with `Accept: text/csv`: the answer's rows as CSV (RFC 4180: a header row, CRLF
// line ends, a field quoted when it holds a comma, a quote or a line break), nulls as empty fields.
// A text that a spreadsheet would run as a formula (a key's name such as "=HYPERLINK(…)": members
// name their keys) is written after a "'", as OWASP advises for CSV meant for spreadsheets.
import type { Usage } from "./usage-shape";

function field(value: string | number | null): string {
  if (value === null) return "";
  const text = typeof value === "string" && /^[=+\-@\t\r]/.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The columns of each grouping: its group's fields, then the counts. */
const COLUMNS: Record<Usage["group_by"], readonly string[]> = {
  day: ["day"],
  model: ["model"],
  key: ["key", "name"],
  member: ["member", "email"],
  source: ["source"],
};
const COUNTS = ["runs", "succeeded", "failed", "canceled", "cost_usd"] as const;

export function usageCsv(usage: Usage): string {
  const columns = [...COLUMNS[usage.group_by], ...COUNTS];
  const lines = [columns.join(",")];
  for (const row of usage.data) {
    const values = row as Record<string, string | number | null>;
    lines.push(columns.map((name) => field(values[name] ?? null)).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** Whether an Accept header asks for CSV (and does not refuse it with q=0). */
export function acceptsCsv(accept: string | undefined | null): boolean {
  if (!accept) return false;
  return accept.split(",").some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(";");
    return type?.trim() === "text/csv" && !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p));
  });
}
