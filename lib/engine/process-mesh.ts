// SQLite's stand-in for NOTIFY: the processes that share one SQLite file (a server, `npm run
// worker` processes, on one machine by SQLite's nature) each listen on a Unix socket in one
// folder named after the file, and send every run signal to every other one. It carries what
// the store never holds (progress) and makes a finish or start elsewhere heard at once; the
// store tick in cross-process.ts stays the fallback for anything lost here.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, realpathSync, statSync, unlinkSync, watch, type FSWatcher } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import type { SignalMessage } from "./run-signals";

/** Peers are looked for again this often besides the folder's change events. */
const RESCAN_MS = 2_000;
/** A peer that reads slower than this backlog misses signals rather than growing our memory. */
const MAX_BACKLOG_BYTES = 1 << 20;
/** Longest line a peer may send; anything longer is not a signal. */
const MAX_LINE_BYTES = 4_096;
/**
 * A socket that refuses connections this long after it was made has no listener: its process died
 * without cleaning up. A younger one may be between bind and listen (the file exists a moment before
 * the listener does), and is tried again at the next rescan instead of being removed.
 */
const STALE_AFTER_MS = 10_000;

/** Whether a socket file that refused a connection is a dead process's, old enough to remove. */
function isStale(peer: string): boolean {
  try {
    return Date.now() - statSync(peer).mtimeMs > STALE_AFTER_MS;
  } catch {
    return false; // Already gone.
  }
}

export interface ProcessMesh {
  publish(message: SignalMessage): void;
  close(): Promise<void>;
}

/** The folder of the mesh for one SQLite file: short (a Unix socket path has ~100 bytes) and private. */
export function meshFolder(sqliteFile: string): string {
  let real = sqliteFile;
  try {
    real = realpathSync(sqliteFile);
  } catch {
    // Not created yet: the path as given names it.
  }
  const hash = createHash("sha256").update(path.resolve(real)).digest("hex").slice(0, 16);
  return path.join(tmpdir(), `atelier-mesh-${hash}`);
}

function isSignal(value: unknown): value is SignalMessage {
  if (!value || typeof value !== "object") return false;
  const m = value as Record<string, unknown>;
  if (m.kind === "queued" || m.kind === "availability_changed" || m.kind === "catalog_changed") return true;
  if (typeof m.id !== "string" || m.id.length > 100) return false;
  if (m.kind === "finished" || m.kind === "key_revoked" || m.kind === "sessions_ended" || m.kind === "provider_event")
    return true;
  return (
    m.kind === "changed" &&
    (m.progress === undefined || typeof m.progress === "number") &&
    (m.queuePosition === undefined || m.queuePosition === null || typeof m.queuePosition === "number")
  );
}

export async function joinProcessMesh(
  folder: string,
  receive: (message: SignalMessage) => void,
  logger: Logger,
): Promise<ProcessMesh> {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const own = path.join(folder, `${process.pid}-${randomBytes(4).toString("hex")}.sock`);
  const peers = new Map<string, net.Socket>();
  const incoming = new Set<net.Socket>();
  let closed = false;

  const server = net.createServer((socket) => {
    incoming.add(socket);
    socket.on("close", () => incoming.delete(socket));
    let buffered = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          const message: unknown = JSON.parse(line);
          if (isSignal(message)) receive(message);
        } catch {
          // Not a signal: ignored.
        }
      }
      if (buffered.length > MAX_LINE_BYTES) socket.destroy();
    });
    socket.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(own, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.unref();

  const connect = (peer: string) => {
    const socket = net.connect(peer);
    socket.unref();
    peers.set(peer, socket);
    socket.on("error", (err: NodeJS.ErrnoException) => {
      // Nobody listens there: a process that died without cleaning up, or one that has only just
      // bound its socket (removing that one cut it off from every signal until it restarted).
      if (err.code === "ECONNREFUSED" && isStale(peer)) {
        try {
          unlinkSync(peer);
        } catch {
          // Already gone.
        }
      }
    });
    socket.on("close", () => {
      if (peers.get(peer) === socket) peers.delete(peer);
    });
  };

  const rescan = () => {
    if (closed) return;
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names) {
      const peer = path.join(folder, name);
      if (name.endsWith(".sock") && peer !== own && !peers.has(peer)) connect(peer);
    }
  };
  rescan();
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(folder, () => rescan());
    watcher.unref();
    watcher.on("error", () => undefined);
  } catch (err) {
    logger.debug({ err }, "process mesh: the folder cannot be watched; peers are found by the rescan");
  }
  const rescanTimer = setInterval(rescan, RESCAN_MS);
  rescanTimer.unref();

  return {
    publish(message) {
      if (closed || peers.size === 0) return;
      const line = `${JSON.stringify(message)}\n`;
      for (const socket of peers.values()) {
        if (socket.connecting || socket.writableLength < MAX_BACKLOG_BYTES) socket.write(line);
      }
    },
    async close() {
      closed = true;
      clearInterval(rescanTimer);
      watcher?.close();
      for (const socket of [...peers.values(), ...incoming]) socket.destroy();
      peers.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      try {
        unlinkSync(own);
      } catch {
        // Already gone.
      }
    },
  };
}

/**
 * Sends one signal to every process of the mesh from a process that does not join it (the admin
 * CLI): a line to each socket in the folder, written before this resolves (a second at most each).
 */
export async function sendToMesh(folder: string, message: SignalMessage): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith(".sock"));
  } catch {
    return 0; // No process has joined: nobody to tell.
  }
  const line = `${JSON.stringify(message)}\n`;
  const sent = await Promise.all(
    names.map(
      (name) =>
        new Promise<boolean>((resolve) => {
          const socket = net.connect(path.join(folder, name));
          const timer = setTimeout(() => (socket.destroy(), resolve(false)), 1_000);
          socket.once("error", () => (clearTimeout(timer), resolve(false)));
          socket.once("connect", () => socket.end(line, () => (clearTimeout(timer), resolve(true))));
        }),
    ),
  );
  return sent.filter(Boolean).length;
}
