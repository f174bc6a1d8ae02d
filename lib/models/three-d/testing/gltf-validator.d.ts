// Types for the Khronos glTF validator (npm gltf-validator ships none); only what the tests use.
declare module "gltf-validator" {
  export interface ValidationMessage {
    code: string;
    message: string;
    /** 0 error, 1 warning, 2 information, 3 hint. */
    severity: number;
    pointer?: string;
    offset?: number;
  }
  export interface ValidationReport {
    issues: {
      numErrors: number;
      numWarnings: number;
      numInfos: number;
      numHints: number;
      messages: ValidationMessage[];
      truncated: boolean;
    };
    info?: { version: string; generator?: string; totalVertexCount?: number; totalTriangleCount?: number };
  }
  export function validateBytes(
    data: Uint8Array,
    options?: { uri?: string; maxIssues?: number; ignoredIssues?: string[] },
  ): Promise<ValidationReport>;
  export function version(): string;
}
