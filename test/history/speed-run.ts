import { readFileSync, writeFileSync } from 'node:fs';
import { checkHistory } from '../../scripts/history/check-history';
import { FinalOrder } from '../../scripts/history/format';
import { readHistoryFile } from '../../scripts/history/read-history';
import { bigSale } from './speed-data';

/**
 * The checker's cost on a big history, outside jest and apart from making it:
 *   node -r ts-node/register/transpile-only test/history/speed-run.ts write N FILE   (FILE and FILE.orders.json)
 *   /usr/bin/time -v node -r ts-node/register/transpile-only test/history/speed-run.ts check FILE
 * `check` reads the file as check-history does, parses and judges it, and prints the CPU seconds
 * and the process's peak memory (the kernel's figure is /usr/bin/time's "Maximum resident set size").
 */
const [command, a, b] = process.argv.slice(2);
if (command === 'write') {
  const { log, orders } = bigSale(Number(a));
  writeFileSync(b, log.toJsonl());
  writeFileSync(`${b}.orders.json`, JSON.stringify(orders));
} else if (command === 'check') {
  const orders = JSON.parse(readFileSync(`${a}.orders.json`, 'utf8')) as FinalOrder[];
  const cpu = process.cpuUsage();
  const { meta, ops } = readHistoryFile(a);
  const parsed = process.cpuUsage(cpu);
  const check = checkHistory(meta, ops, orders, { finalReadAtMs: Date.now(), require: ['all'] });
  const used = process.cpuUsage(cpu);
  const s = (u: NodeJS.CpuUsage) => ((u.user + u.system) / 1e6).toFixed(2);
  const failed = check.rules.filter((r) => !r.ok).map((r) => r.id);
  console.log(`${check.figures.ops} operations, ${check.figures.orders} orders: ${s(used)} s of CPU (reading and parsing ${s(parsed)} s), peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB; ${failed.length ? `FAILED ${failed.join(', ')}` : 'every rule passed'}`);
  process.exitCode = failed.length ? 1 : 0;
} else {
  console.error('usage: speed-run.ts write N FILE | check FILE');
  process.exitCode = 2;
}
