// npm run catalog-table: rewrites the catalog table in README.md from the model modules.
import { readFileSync, writeFileSync } from "node:fs";
import { BUILT_IN_MODELS } from "../lib/models";
import { catalogTable, withCatalogTable } from "../lib/models/catalog-table";

const file = new URL("../README.md", import.meta.url);
const readme = readFileSync(file, "utf8");
const updated = withCatalogTable(readme, catalogTable(BUILT_IN_MODELS));
writeFileSync(file, updated);
console.log(updated === readme ? "README catalog table already current" : "README catalog table updated");
