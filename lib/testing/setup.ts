// Vitest setup: tests see the machine's programs and the built-in models as a started server
// would (lib/boot/boot.ts's installCatalog, without a providers file).
import { installBuiltInModels } from "../core/catalog/catalog";
import { setProgramSearchPath } from "../media/host";
import { BUILT_IN_MODELS } from "../models";

setProgramSearchPath(process.env.PATH ?? "");
installBuiltInModels(BUILT_IN_MODELS);
