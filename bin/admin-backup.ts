// The admin CLI's backups: `backup --to DIR` copies a running install (lib/boot/backup.ts),
// `restore --from DIR` puts one into an empty DATA_DIR. Neither opens the store through the usual
// start (no migration, no catalog): a backup copies the store as it is, and a restore has no store yet.
import type { Command } from "commander";
import { backupInstall, restoreInstall } from "../lib/boot/backup";
import { loadStorageSettings } from "../lib/boot/config";
import { print, printsJson } from "./admin-io";

function printNotes(notes: string[]): void {
  if (printsJson()) return;
  for (const note of notes) console.log(`- ${note}`);
}

export function addBackupCommands(program: Command): void {
  program
    .command("backup")
    .description(
      "copy this install into a new or empty directory while the server runs: the SQLite store, the blobs it names, DATA_DIR/secret-key, and a manifest with each file's sha256",
    )
    .requiredOption("--to <dir>", "a new or empty directory")
    .action(async (options: { to: string }) => {
      const report = await backupInstall(loadStorageSettings(), { to: options.to });
      print(report, [
        {
          to: report.to,
          database: report.database_copied ? "copied" : `${report.database}: not copied`,
          blobs: report.blobs === "disk" ? report.blobs_copied : "in the bucket",
          secret_key: report.secret_key_copied ? "copied" : report.secret_key,
          files: report.files,
          bytes: report.bytes,
        },
      ]);
      printNotes(report.notes);
    });
  program
    .command("restore")
    .description(
      "copy a backup into DATA_DIR, which must be empty or new, checking every file's sha256 against the manifest first",
    )
    .requiredOption("--from <dir>", "a directory `backup --to` made")
    .action(async (options: { from: string }) => {
      const report = await restoreInstall(loadStorageSettings(), { from: options.from });
      print(report, [
        { data_dir: report.data_dir, database: report.database, files: report.files, bytes: report.bytes },
      ]);
      printNotes(report.notes);
    });
}
