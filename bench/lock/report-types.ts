import { CellResult } from './cell-result';
import { BenchConfig } from './config';
import { GoalCheck } from './goals';
import { MachineInfo } from './machine';
import { RoundTrip } from './server-stats';
import { SweepOutcome } from './sweep';

/** Everything one run produced; written verbatim to bench/results/lock.json. */
export interface BenchReport {
  date: string;
  command: string;
  machine: MachineInfo;
  config: BenchConfig;
  roundTrip: { start: RoundTrip; end: RoundTrip };
  oursAvailable: boolean;
  sweep: SweepOutcome[];
  cells: CellResult[];
  goals: GoalCheck[];
  durationS: number;
}
