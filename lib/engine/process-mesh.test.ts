// The process mesh's peers: a socket file that refuses connections is removed only once it is old
// (its process died); a young one may be a peer between bind and listen, which joins a moment
// later. Removing such a file once cut a studio thread off from every signal of its server
// (sessions ended, pauses, progress), on about half of the starts of a loaded machine.
import { mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { joinProcessMesh } from "./process-mesh";
import type { SignalMessage } from "./run-signals";

const silent = pino({ level: "silent" });
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("process mesh", () => {
  it("keeps a young socket that refuses (bound, not yet listening) and removes an old one", async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), "mesh-test-"));
    folders.push(folder);
    // Files no one listens on: connecting to them is refused, as to a socket between bind and listen.
    const young = path.join(folder, "1-young.sock");
    const old = path.join(folder, "2-old.sock");
    writeFileSync(young, "");
    writeFileSync(old, "");
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(old, minuteAgo, minuteAgo);

    const mesh = await joinProcessMesh(folder, () => undefined, silent);
    try {
      await until(() => !existsSync(old), "the old socket file to be removed");
      expect(existsSync(young)).toBe(true);
    } finally {
      await mesh.close();
    }
  });

  it("a peer whose socket was refused at first is reached once it listens", async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), "mesh-test-"));
    folders.push(folder);
    const sender = await joinProcessMesh(folder, () => undefined, silent);
    // A late listener: its file appears (and is refused) before it listens, as with bind then listen.
    const late = path.join(folder, "3-late.sock");
    writeFileSync(late, "");
    await new Promise((resolve) => setTimeout(resolve, 300));
    rmSync(late);
    const heard: SignalMessage[] = [];
    const server = net.createServer((socket) => {
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => {
        for (const line of chunk.split("\n").filter(Boolean)) heard.push(JSON.parse(line) as SignalMessage);
      });
    });
    await new Promise<void>((resolve) => server.listen(late, resolve));
    try {
      await until(() => {
        sender.publish({ kind: "queued" });
        return heard.length > 0;
      }, "the late listener to hear a signal");
      expect(heard[0]).toEqual({ kind: "queued" });
    } finally {
      await sender.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
