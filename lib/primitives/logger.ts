import pino, { type Logger } from "pino";

export function createLogger(level: string, name = "atelier"): Logger {
  return pino({ name, level });
}
