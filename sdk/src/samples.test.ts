// The SDK examples of GET /v1/openapi.json (each operation's `x-codeSamples`, written in
// api/openapi/operations.ts) are typechecked against this SDK, so a sample cannot call a method
// the SDK lacks or pass what it does not take.
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../api/openapi/document";

interface Sample {
  lang: string;
  label: string;
  source: string;
}

function sdkSamples(): Array<{ operation: string; source: string }> {
  const doc = openApiDocument() as {
    paths: Record<string, Record<string, { operationId: string; "x-codeSamples": Sample[] }>>;
  };
  return Object.values(doc.paths).flatMap((methods) =>
    Object.values(methods).map((op) => ({
      operation: op.operationId,
      source: op["x-codeSamples"].find((s) => s.label === "SDK")!.source,
    })),
  );
}

describe("the document's SDK samples", () => {
  it("typecheck against the SDK", () => {
    const samples = sdkSamples();
    expect(samples.length).toBeGreaterThan(30);
    const here = path.dirname(fileURLToPath(import.meta.url));
    const file = path.join(here, "__samples__.ts");
    const importLine = 'import { Atelier } from "@atelier/sdk";';
    // A sample's own imports go to the top of the file; the rest becomes a function's body.
    const imports = new Set<string>();
    const bodies = samples.map(({ operation, source }) => {
      expect(source.startsWith(importLine), operation).toBe(true);
      const lines = source.split("\n");
      for (const line of lines) if (line.startsWith("import ")) imports.add(line);
      return `export async function ${operation}() {\n${lines.filter((l) => !l.startsWith("import ")).join("\n")}\n}`;
    });
    const text = `${[...imports].join("\n")}\n\n${bodies.join("\n\n")}\n`;
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      types: ["node"],
      typeRoots: [path.resolve(here, "../../node_modules/@types")],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      paths: { "@atelier/sdk": [path.join(here, "index.ts")] },
    };
    const host = ts.createCompilerHost(options);
    const read = host.readFile.bind(host);
    const exists = host.fileExists.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.readFile = (name) => (name === file ? text : read(name));
    host.fileExists = (name) => name === file || exists(name);
    host.getSourceFile = (name, version, ...rest) =>
      name === file ? ts.createSourceFile(name, text, version) : getSourceFile(name, version, ...rest);
    const program = ts.createProgram([file], options, host);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === file || d.file === undefined)
      .map((d) => {
        const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
        if (!d.file || d.start === undefined) return message;
        const { line } = d.file.getLineAndCharacterOfPosition(d.start);
        return `line ${line + 1} (${text.split("\n")[line]?.trim()}): ${message}`;
      });
    expect(problems).toEqual([]);
  });
});
