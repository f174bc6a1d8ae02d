import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUILT_IN_MODELS } from ".";
import { catalogTable, withCatalogTable } from "./catalog-table";

describe("the catalog table of docs/models-and-presets.md", () => {
  it("is current with the model modules (run `npm run catalog-table` after changing one)", () => {
    const page = readFileSync(new URL("../../docs/models-and-presets.md", import.meta.url), "utf8");
    expect(withCatalogTable(page, catalogTable(BUILT_IN_MODELS))).toBe(page);
  });

  it("lists every built-in entry once with its price", () => {
    const table = catalogTable(BUILT_IN_MODELS);
    for (const d of BUILT_IN_MODELS) {
      expect(table.split("\n").filter((line) => line.startsWith(`| \`${d.id}\` |`))).toHaveLength(1);
    }
    expect(table).toContain("$0.002 per image; $0.004 when resolution = hd");
  });
});
