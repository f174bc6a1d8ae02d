// sdk/src/schema.ts is generated from the OpenAPI document (npx tsx scripts/sdk-types.ts): this
// regenerates it in memory and fails when the committed file differs, so the SDK's types
// (aliases of its components) cannot drift from what GET /v1/openapi.json says.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SDK_SCHEMA_FILE, sdkSchemaSource } from "../../scripts/sdk-types";

describe("sdk/src/schema.ts", () => {
  it("is what openapi-typescript makes of the document now (else run: npx tsx scripts/sdk-types.ts)", async () => {
    const committed = readFileSync(SDK_SCHEMA_FILE, "utf8");
    const fresh = await sdkSchemaSource();
    // A plain equality first: a diff of half a megabyte helps nobody; the first differing line does.
    if (committed !== fresh) {
      const a = committed.split("\n");
      const b = fresh.split("\n");
      const line = a.findIndex((text, i) => text !== b[i]);
      const at = line < 0 ? Math.min(a.length, b.length) : line;
      expect.fail(
        `sdk/src/schema.ts differs from the document at line ${at + 1}:\n  committed: ${a[at] ?? "(end of file)"}\n  generated: ${b[at] ?? "(end of file)"}\nRun: npx tsx scripts/sdk-types.ts`,
      );
    }
    expect(committed).toBe(fresh);
  });

  it("names every schema the SDK's public types alias", () => {
    const source = readFileSync(SDK_SCHEMA_FILE, "utf8");
    const types = readFileSync(new URL("./types.ts", import.meta.url), "utf8");
    const aliased = [...types.matchAll(/Schemas\["(\w+)"\]/g)].map((m) => m[1]!);
    expect(aliased.length).toBeGreaterThan(20);
    for (const name of new Set(aliased)) expect(source, name).toMatch(new RegExp(`^        ${name}: \\{`, "m"));
  });
});
