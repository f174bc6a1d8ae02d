// For tests of database outages: a TCP proxy in front of PostgreSQL that a test can stop (no
// new connections, and every open one cut, as a restarted or unreachable server does), hold
// closed, and start again on the same port. Not a fake: every byte goes to the real server.
import net from "node:net";

export interface TcpProxy {
  /** The port it listens on (the same across stop/start). */
  readonly port: number;
  /** Refuses new connections (ECONNREFUSED) and, unless told otherwise, cuts the open ones. */
  stop(options?: { cutOpenConnections?: boolean }): Promise<void>;
  /** Accepts connections again. */
  start(): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

function listen(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** A proxy to target (default PostgreSQL's 127.0.0.1:5432) on a free port of 127.0.0.1. */
export async function startTcpProxy(
  target: { host: string; port: number } = { host: "127.0.0.1", port: 5432 },
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A cut connection is the point of this proxy: its errors are not the test's.
    socket.on("error", () => socket.destroy());
  };
  const newServer = () =>
    net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      track(client);
      track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });

  let server: net.Server | null = newServer();
  const port = await listen(server, 0);

  /** Closes the listening socket; connections already open are not waited for (cutAll ends them). */
  const stopListening = async () => {
    const closing = server;
    server = null;
    if (!closing) return;
    closing.close();
    await new Promise((resolve) => setImmediate(resolve));
  };
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };

  return {
    port,
    async stop(options = {}) {
      const closed = stopListening();
      if (options.cutOpenConnections !== false) cutAll();
      await closed;
    },
    async start() {
      if (server) return;
      server = newServer();
      await listen(server, port);
    },
    async close() {
      const closed = stopListening();
      cutAll();
      await closed;
    },
  };
}

/** `databaseUrl` with its host and port replaced by the proxy's. */
export function viaProxy(databaseUrl: string, proxy: Pick<TcpProxy, "port">): string {
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(proxy.port);
  return url.toString();
}
