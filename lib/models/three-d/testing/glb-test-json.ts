// For tests: a glb with its JSON chunk changed (its BIN chunk kept), to make damaged, hostile or
// unservable files from good ones.

/** The glb with its JSON chunk edited in place by `edit`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests reach into any part of the glTF JSON
export function withGlbJson(glb: Buffer, edit: (json: Record<string, any>) => void): Buffer {
  const jsonLength = glb.readUInt32LE(12);
  const json = JSON.parse(glb.toString("utf8", 20, 20 + jsonLength)) as Record<string, unknown>;
  edit(json);
  let text = Buffer.from(JSON.stringify(json));
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const rest = glb.subarray(20 + jsonLength);
  const header = Buffer.alloc(20);
  header.write("glTF", 0, "latin1");
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + text.length + rest.length, 8);
  header.writeUInt32LE(text.length, 12);
  header.writeUInt32LE(0x4e4f534a, 16);
  return Buffer.concat([header, text, rest]);
}
