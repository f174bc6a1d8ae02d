// npm run catalog-table: rewrites the catalog table in docs/models-and-presets.md from the model modules.
import { readFileSync, writeFileSync } from "node:fs";
import { BUILT_IN_MODELS } from "../lib/models";
import { catalogTable, withCatalogTable } from "../lib/models/catalog-table";

const file = new URL("../docs/models-and-presets.md", import.meta.url);
const page = readFileSync(file, "utf8");
const updated = withCatalogTable(page, catalogTable(BUILT_IN_MODELS));
writeFileSync(file, updated);
console.log(updated === page ? "Catalog table already current" : "Catalog table updated");
