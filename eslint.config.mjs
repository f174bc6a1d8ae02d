import js from "@eslint/js";
import tseslint from "typescript-eslint";

// The layers of lib/, bottom to top (docs/architecture.md, "Layers and the dependency direction"):
// each may import the layers it lists and itself, nothing above it, no door, and no testing
// folder. Tests (*.test.ts) and testing/ folders may import any layer of lib/, never a door.
const LAYERS = {
  primitives: [],
  store: ["primitives"],
  blobs: ["primitives"],
  media: ["primitives"],
  core: ["primitives", "store", "blobs", "media"],
  engine: ["primitives", "store", "blobs", "media", "core"],
  models: ["primitives", "media", "core"],
  providers: ["primitives", "store", "blobs", "media", "core", "models"],
  boot: ["primitives", "store", "blobs", "media", "core", "engine", "models", "providers"],
};
const TEST_FILES = ["**/*.test.ts", "**/testing/**"];
const DOORS = ["app", "api", "bin", "components"];

/** A folder as import specifiers name it: relative ("../../store/x") or through the @/ alias. */
const folder = (name) => [`**/${name}`, `**/${name}/**`, `@/lib/${name}`, `@/lib/${name}/**`];

// House rule 1: the core imports no framework and no door.
const FRAMEWORK_AND_DOORS = [
  { group: ["next", "next/*"], message: "lib/ is framework-free: no Next.js." },
  { group: ["react", "react/*", "react-dom", "react-dom/*"], message: "lib/ is framework-free: no React." },
  { group: ["hono", "hono/*", "@hono/*"], message: "lib/ is framework-free: no Hono." },
  {
    group: DOORS.flatMap((d) => [`**/${d}/*`, `@/${d}/*`]),
    message: "lib/ never imports a door (app/, api/, bin/, components/).",
  },
];
const NO_TESTING = {
  group: [...folder("testing"), "**/*.test"],
  message: "Production code never imports test code (testing/ folders, *.test.ts).",
};
// Callers write through lib/store/writes.ts (a transaction or a write list); how a list reaches the
// database (steps, group commit, merged inserts) stays private to lib/store.
const STORE_INTERNALS = {
  group: ["transaction-steps", "write-groups", "merged-inserts"].flatMap((f) => [`**/store/${f}`, `@/lib/store/${f}`]),
  message:
    "Write through lib/store/writes.ts (withTransaction, writeList); the rest of the write path is lib/store's own.",
};

function layerRules() {
  const restrict = (patterns) => ({ "no-restricted-imports": ["error", { patterns }] });
  const layerConfigs = Object.entries(LAYERS).map(([layer, below]) => {
    const above = Object.keys(LAYERS).filter((l) => l !== layer && !below.includes(l));
    return {
      files: [`lib/${layer}/**/*.ts`],
      ignores: TEST_FILES,
      rules: restrict([
        ...FRAMEWORK_AND_DOORS,
        ...(above.length
          ? [
              {
                group: above.flatMap(folder),
                message: `lib/${layer} may import only ${below.length ? below.map((l) => `lib/${l}`).join(", ") : "itself"}: the layers point down.`,
              },
            ]
          : []),
        NO_TESTING,
        ...(layer === "store" ? [] : [STORE_INTERNALS]),
      ]),
    };
  });
  return [
    // Anything in lib/ outside the table's folders is refused, so a new folder must take its place in it.
    {
      files: ["lib/**/*.ts"],
      ignores: [...Object.keys(LAYERS).map((l) => `lib/${l}/**`), ...TEST_FILES],
      rules: {
        "no-restricted-syntax": [
          "error",
          { selector: "Program", message: "lib/ holds layer folders only (eslint.config.mjs, LAYERS)." },
        ],
      },
    },
    ...layerConfigs,
    { files: TEST_FILES.map((p) => `lib/${p}`), rules: restrict([...FRAMEWORK_AND_DOORS, STORE_INTERNALS]) },
    { files: TEST_FILES.map((p) => `lib/store/${p}`), rules: restrict(FRAMEWORK_AND_DOORS) },
    {
      files: [...DOORS.map((d) => `${d}/**/*.{ts,tsx}`), "server.ts", "instrumentation.ts", "sdk/**/*.ts"],
      ignores: ["**/*.test.ts"],
      rules: restrict([NO_TESTING, STORE_INTERNALS]),
    },
    // Components take from app/ only what app/_studio/ offers them (server actions, the studio
    // Ctx, shared shapes): never a page, a layout or a route.
    {
      files: ["components/**/*.{ts,tsx}"],
      ignores: ["**/*.test.ts"],
      rules: restrict([
        NO_TESTING,
        STORE_INTERNALS,
        {
          regex: "^(@/app/(?!_studio/)|(\\.\\./)+app/(?!_studio/))",
          message: "components/ import from app/ only app/_studio/ (actions, the studio Ctx, shared shapes).",
        },
      ]),
    },
  ];
}

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      ".data*/",
      "test-results/",
      "playwright-report/",
      ".test-build/",
      "dist/",
      "next-env.d.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  ...layerRules(),
  {
    files: ["scripts/**/*.mjs", "next.config.mjs"],
    languageOptions: { globals: { console: "readonly", process: "readonly", URL: "readonly" } },
  },
);
