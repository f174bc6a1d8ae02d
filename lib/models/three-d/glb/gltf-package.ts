// @gltf-transform/core loads when a 3D model first writes or reads a GLB, not with the catalog:
// loading it slows the start of every process that imports the catalog (the admin CLI on each
// call, the server, a worker). `require` names the package literally so bundlers still see it, as
// lib/providers/ai-sdk/ai-sdk-packages.ts does.
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as GltfPackage from "@gltf-transform/core";

let gltf: typeof GltfPackage | undefined;

export function gltfTransform(): typeof GltfPackage {
  return (gltf ??= require("@gltf-transform/core") as typeof GltfPackage);
}
