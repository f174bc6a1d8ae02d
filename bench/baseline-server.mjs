// The baseline: a bare node:http server answering the exact bytes Atelier answered (status,
// headers, body), read from the JSON file named by argv[2]. Prints its port once listening.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import process from "node:process";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const body = Buffer.from(spec.body, "base64");
const headers = { ...spec.headers, "content-length": String(body.length) };

const server = createServer((req, res) => {
  // Read the request body as a real server must, then answer.
  req.on("data", () => {});
  req.on("end", () => {
    res.writeHead(spec.status, headers);
    res.end(body);
  });
});
server.keepAliveTimeout = 5000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on("SIGTERM", () => process.exit(0));
