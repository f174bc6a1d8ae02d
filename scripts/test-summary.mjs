// Adds up the JSON reports of every test run into one closing line: "N passed, N failed".
import { existsSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  // A report that is missing means a step wrote it elsewhere or not at all: never a silent pass.
  if (!existsSync(file)) {
    console.error(`No test report at ${file}.`);
    process.exit(1);
  }
  const report = JSON.parse(readFileSync(file, "utf8"));
  if ("numPassedTests" in report) {
    // Vitest
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + (report.numTodoTests ?? 0);
  } else if (report.stats) {
    // Playwright
    passed += report.stats.expected + (report.stats.flaky ?? 0);
    failed += report.stats.unexpected;
    skipped += report.stats.skipped;
  }
}
console.log(`\nAll test runs:`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed === 0 || failed > 0) process.exit(1);
