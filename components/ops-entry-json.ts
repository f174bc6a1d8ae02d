// The entry editor's JSON fields: a mistake told by line and column, as people count them.

/** JSON.parse with the place of a mistake as line and column. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const message = (err as Error).message;
    const at = /position (\d+)/.exec(message);
    const pos = at ? Number(at[1]) : text.length;
    const before = text.slice(0, pos).split("\n");
    const line = before.length;
    const column = before.at(-1)!.length + 1;
    const what = message.replace(/\s*\(line \d+ column \d+\)/, "").replace(/ in JSON at position \d+/, "");
    return { ok: false, message: `Line ${line}, column ${column}: ${what}` };
  }
}
