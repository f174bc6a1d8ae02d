// Vitest setup: tests see the machine's programs as a started server would.
import { setProgramSearchPath } from "../media/host";

setProgramSearchPath(process.env.PATH ?? "");
