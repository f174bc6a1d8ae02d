import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", ".data*/", "test-results/", "playwright-report/", "next-env.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // House rule 1: the core imports no framework and no door.
    files: ["lib/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["next", "next/*"], message: "lib/ is framework-free: no Next.js." },
            { group: ["react", "react/*", "react-dom", "react-dom/*"], message: "lib/ is framework-free: no React." },
            { group: ["hono", "hono/*", "@hono/*"], message: "lib/ is framework-free: no Hono." },
            {
              group: ["**/app/*", "**/api/*", "**/bin/*", "**/components/*", "@/app/*", "@/api/*", "@/bin/*", "@/components/*"],
              message: "lib/ never imports a door (app/, api/, bin/, components/).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["scripts/**/*.mjs"],
    languageOptions: { globals: { console: "readonly", process: "readonly", URL: "readonly" } },
  },
);
