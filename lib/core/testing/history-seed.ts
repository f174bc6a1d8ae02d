// A long run history written straight into the store (not through the API): the history tests and
// the bench's `history` scenario read it. Deterministic: the same options give the same rows.
import type { Db, GenerationsTable, GenerationStatus } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { SOURCES, type Source } from "../context";

export interface HistorySeed {
  workspaceId: string;
  runs: number;
  /** Catalog IDs the runs are spread over, in turn. */
  models?: readonly string[];
  /** Sources the runs are spread over, in turn (every source unless told). */
  sources?: readonly Source[];
  /** The newest run's time; the others go back `days` days from it. */
  newest?: Date;
  days?: number;
  /** ID prefix after "gen_", so that several seeds of one store stay apart. */
  tag?: string;
  /** Rows per insert statement. */
  chunk?: number;
}

const WORDS = ["sunset", "harbour", "forest", "neon", "portrait", "river", "castle", "desert", "robot", "garden"];

/** 97 % succeeded, 2 % failed, 1 % canceled, as a long-used install has. */
function statusOf(i: number): GenerationStatus {
  const r = i % 100;
  return r < 2 ? "failed" : r < 3 ? "canceled" : "succeeded";
}

/** The i-th run of the seed (0 is the oldest). */
export function seededRun(seed: HistorySeed, i: number): GenerationsTable {
  const models = seed.models ?? ["atelier/gradient"];
  const model = models[i % models.length]!;
  const sources = seed.sources ?? SOURCES;
  const newest = (seed.newest ?? new Date()).getTime();
  const spanMs = (seed.days ?? 60) * 86_400_000;
  const created = newest - spanMs + Math.floor((spanMs * (i + 1)) / seed.runs);
  const status = statusOf(i);
  const words = `${WORDS[i % WORDS.length]} ${WORDS[Math.floor(i / WORDS.length) % WORDS.length]} no.${i}`;
  return {
    id: `gen_${seed.tag ?? "seed"}${String(i).padStart(9, "0")}`,
    workspace_id: seed.workspaceId,
    model,
    model_base: model.split("@")[0]!,
    modality: "image",
    revision: "2026-01-01",
    status,
    provider: null,
    input_json: JSON.stringify({ prompt: words }),
    output_json: "[]",
    preview_json: null,
    uncancelable_reason: null,
    error_message: status === "failed" ? `The model failed on run ${i % 7}.` : null,
    price_micros: 1000,
    charged_micros: status === "succeeded" ? 1000 : null,
    hold_id: null,
    source: sources[i % sources.length]!,
    batch_id: null,
    batch_index: null,
    webhook: null,
    created_by: null,
    created_at: new Date(created).toISOString(),
    started_at: new Date(created + 500).toISOString(),
    completed_at: new Date(created + 2_500).toISOString(),
    lease_owner: null,
    lease_expires_at: null,
    attempts: 1,
  };
}

/** Writes the seed's runs, oldest first, `chunk` rows per statement, in transactions of a few statements. */
export async function seedHistory(db: Db, seed: HistorySeed): Promise<void> {
  const chunk = seed.chunk ?? 500;
  for (let start = 0; start < seed.runs; start += chunk * 20) {
    await withTransaction(db, async (trx) => {
      for (let from = start; from < Math.min(start + chunk * 20, seed.runs); from += chunk) {
        const rows = [];
        for (let i = from; i < Math.min(from + chunk, seed.runs); i++) rows.push(seededRun(seed, i));
        await trx.insertInto("generations").values(rows).execute();
      }
    });
  }
}
