#!/usr/bin/env node
// Checks a waiting room's order from what the sale published, as the API reference defines it
// (docs/API.md, "Waiting room"). Two ways to call it:
//
//   node scripts/queue-order/verify-queue-order.mjs --audit FILE|- [--sale-commitment HEX] [--ticket TICKET]
//
// checks a sale's whole audit file (GET /products/:id/queue/audit) offline: the commitment (against
// the hash published before the joins, when given), the seed against it, the beacon round's BLS
// signature (needs @noble/curves) or the declared fallback, every ticket's place, admission in queue
// order, and the hash chain of admin actions; it names the first mismatch. With --ticket (the ticket
// the buyer holds) it also finds and prints the buyer's own verified place.
//
//   node scripts/queue-order/verify-queue-order.mjs --seed HEX [--commitment HEX] [--check] < ids
//
// (the original use, unchanged) sorts ticket ids by the lowercase hex of HMAC-SHA256(key = the seed's
// bytes, message = the ticket id in UTF-8), ascending: the order of a sale whose shuffle key is its
// seed (beacon MISSING or NONE; for a VERIFIED sale pass the audit's reveal.shuffleSeed as --seed).
// stdin: ticket ids, one per line. Prints them in queue order. With --commitment, first checks
// that the seed is the one promised when the pre-queue opened (its SHA-256). With --check, the
// lines are the order in which the tickets were admitted, and the answer is whether it is the
// seeded order. Exit status: 0 when every check holds, 1 when one fails, 2 for bad arguments.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyAudit } from './verify-audit.mjs';

const HEX = /^(?:[0-9a-f]{2})+$/;

function fail(status, message) {
  process.stderr.write(`${message}\n`);
  process.exit(status);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      seed: { type: 'string' },
      commitment: { type: 'string' },
      check: { type: 'boolean', default: false },
      audit: { type: 'string' },
      'sale-commitment': { type: 'string' },
      ticket: { type: 'string' },
    },
  }));
} catch (error) {
  fail(2, `${error.message}\nusage: verify-queue-order --audit FILE|- [--sale-commitment HEX] [--ticket TICKET]\n       verify-queue-order --seed HEX [--commitment HEX] [--check] < ticket ids, one per line`);
}
if (options.audit !== undefined) {
  const text = readFileSync(options.audit === '-' ? 0 : options.audit, 'utf8');
  const { status, lines } = await verifyAudit(text, options['sale-commitment']?.toLowerCase(), options.ticket);
  for (const line of lines) (status === 0 ? process.stdout : process.stderr).write(`${line}\n`);
  process.exit(status);
}
const seedHex = (options.seed ?? '').toLowerCase();
if (!HEX.test(seedHex)) fail(2, '--seed must be the published seed, in hex');
const seed = Buffer.from(seedHex, 'hex');

if (options.commitment !== undefined) {
  const promised = options.commitment.toLowerCase();
  const actual = createHash('sha256').update(seed).digest('hex');
  if (actual !== promised) fail(1, `FAIL: SHA-256 of the seed is ${actual}, the commitment published was ${promised}`);
}

const ids = readFileSync(0, 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line.length > 0);
const rank = new Map(ids.map((id) => [id, createHmac('sha256', seed).update(id, 'utf8').digest('hex')]));
const seeded = [...ids].sort((a, b) => (rank.get(a) < rank.get(b) ? -1 : rank.get(a) > rank.get(b) ? 1 : 0));

if (!options.check) {
  process.stdout.write(seeded.map((id) => `${id}\n`).join(''));
  process.exit(0);
}
const wrong = seeded.findIndex((id, i) => ids[i] !== id);
if (wrong >= 0) fail(1, `FAIL: admission ${wrong + 1} went to ticket ${ids[wrong]}; the seeded order gives it to ticket ${seeded[wrong]}`);
process.stdout.write(`PASS: ${ids.length} tickets admitted in the seeded order${options.commitment ? ', and the seed matches its commitment' : ''}\n`);
