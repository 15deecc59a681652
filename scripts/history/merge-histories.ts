import { toReferenceClock } from './clock-shift';
import { GeneratorRun, MetaRecord, OpRecord } from './format';

/** One history file as read. */
export interface HistoryPart {
  file: string;
  meta: MetaRecord;
  ops: OpRecord[];
}

/** What each generator's history brought, for the verdict's header. */
export interface MergedPart {
  file: string;
  generator: string;
  role: GeneratorRun['role'];
  ops: number;
  offsetMs: number;
  uncertaintyMs: number;
}

export interface MergedHistory {
  meta: MetaRecord;
  ops: OpRecord[];
  /** The run id and each generator's part; absent for a single history written without one. */
  run?: { id: string; against: string; parts: MergedPart[] };
}

/**
 * Makes the histories of one shared run one history: every part moved onto the reference clock
 * (toReferenceClock, in place), the lead's products as the sale's ground truth, each operation's
 * `process` prefixed by its generator, the operations in order of their (widened) answers. A single
 * history without a run record is returned as it is.
 */
export function mergeHistories(parts: HistoryPart[]): MergedHistory {
  if (parts.length === 0) throw new Error('no history to judge');
  if (parts.length === 1 && !parts[0].meta.run) return { meta: parts[0].meta, ops: parts[0].ops };
  const runs = parts.map(runOf);
  const lead = leadOf(parts, runs);
  const against = runs[0].clock.against;
  const other = runs.find((run) => run.clock.against !== against);
  if (other)
    throw new Error(
      `the offsets were measured against different clocks (${against}; ${other.clock.against}): give every generator the same first --url`,
    );
  const leadProducts = new Set(lead.meta.products.map((p) => String(p.productId)));
  for (const part of parts) {
    const stray = part.meta.products.find((p) => !leadProducts.has(String(p.productId)));
    if (stray) throw new Error(`${part.file}: product ${stray.productId} is not the lead's (${[...leadProducts]})`);
  }
  const readAtMs = leadTruthReadAt(lead.meta.run as GeneratorRun);
  const ops: OpRecord[] = [];
  parts.forEach((part, i) => {
    toReferenceClock(part.ops, runs[i].clock);
    const generator = runs[i].generator;
    for (const op of part.ops) {
      op.process = op.process === undefined ? generator : `${generator}/${op.process}`;
      // A follower's operation surely over before the lead read its products may be in that ground truth.
      if (part !== lead && op.completeMs < readAtMs)
        throw new Error(
          `${part.file}: an operation answered at ${new Date(op.completeMs).toISOString()}, before the lead read its products at ${new Date(readAtMs).toISOString()}: start the followers after the lead`,
        );
      ops.push(op);
    }
  });
  ops.sort((a, b) => a.completeMs - b.completeMs);
  const starts = parts.flatMap((p, i) =>
    p.meta.startedAtMs === undefined ? [] : [p.meta.startedAtMs + runs[i].clock.offsetMs],
  );
  return {
    meta: {
      ...lead.meta,
      writer: `${parts.length} generator(s) of run ${runs[0].id}`,
      ...(starts.length ? { startedAtMs: Math.min(...starts) } : {}),
    },
    ops,
    run: {
      id: runs[0].id,
      against,
      parts: parts.map((part, i) => ({
        file: part.file,
        generator: runs[i].generator,
        role: runs[i].role,
        ops: part.ops.length,
        offsetMs: runs[i].clock.offsetMs,
        uncertaintyMs: runs[i].clock.uncertaintyMs,
      })),
    },
  };
}

function runOf(part: HistoryPart): GeneratorRun {
  const run = part.meta.run;
  if (!run?.clock)
    throw new Error(
      `${part.file}: no run record (meta.run with its clock offset): only histories written with --run-id can be judged together`,
    );
  return run;
}

/** Every part of one run id, each generator once, exactly one lead. */
function leadOf(parts: HistoryPart[], runs: GeneratorRun[]): HistoryPart {
  const ids = [...new Set(runs.map((run) => run.id))];
  if (ids.length > 1) throw new Error(`the histories are of different runs: ${ids.join(', ')}`);
  const seen = new Map<string, string>();
  parts.forEach((part, i) => {
    const earlier = seen.get(runs[i].generator);
    if (earlier !== undefined)
      throw new Error(`${earlier} and ${part.file} are both generator ${runs[i].generator}: the same file twice?`);
    seen.set(runs[i].generator, part.file);
  });
  const leads = parts.filter((_, i) => runs[i].role === 'lead');
  if (leads.length !== 1)
    throw new Error(
      `a run is judged with its lead's history (its products are the ground truth): ${leads.length} of the files are a lead's`,
    );
  return leads[0];
}

/** The earliest the lead's reading of its products may have been, on the reference clock. */
function leadTruthReadAt(run: GeneratorRun): number {
  if (run.productsReadAtMs === undefined) return -Infinity;
  return run.productsReadAtMs + run.clock.offsetMs - run.clock.uncertaintyMs;
}
