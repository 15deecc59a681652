// The checks of a sale's audit file (docs/API.md, "GET /products/:id/queue/audit"), in the order a
// doubter would make them: each returns the first mismatch it finds as a sentence, or null. Node's
// crypto alone, except the beacon's BLS signature (@noble/curves, loaded only for that check).
import { createHash, createHmac, createSecretKey } from 'node:crypto';

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** JSON with every object's keys sorted and no white space: what the commitment and admin actions are hashed as. */
export function canonicalJson(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
}

export function checkCommitment(file, promised) {
  const { hash, ...fields } = file.commitment ?? {};
  if (!file.commitment) return 'commitment: the file has none (a sale created before commitments cannot be verified this way)';
  const actual = sha256(canonicalJson(fields));
  if (actual !== hash) return `commitment: its fields hash to ${actual}, the file says ${hash}`;
  if (promised !== undefined && promised !== hash) return `commitment: the file's is ${hash}, the one published before the joins was ${promised}`;
  const beacon = file.commitment.beacon;
  if (beacon && file.commitment.saleStartsAt) {
    const start = Date.parse(file.commitment.saleStartsAt);
    const since = start - beacon.genesisS * 1000;
    const due = since <= 0 ? 1 : Math.ceil(since / (beacon.periodS * 1000)) + 1;
    if (beacon.round !== due) return `commitment: beacon round ${beacon.round} is not the one due at the start (${due})`;
  }
  return null;
}

export function checkSeed(file) {
  const reveal = file.reveal;
  if (!/^[0-9a-f]{64}$/.test(reveal.seed ?? '')) return 'seed: the revealed seed is not 32 bytes of hex';
  const actual = sha256(Buffer.from(reveal.seed, 'hex'));
  if (actual !== file.commitment.seedCommitment)
    return `seed: SHA-256 of the revealed seed is ${actual}, the commitment promised ${file.commitment.seedCommitment}`;
  return null;
}

/** The beacon's signature of the committed round, or the declared fallback; and the shuffle's key derived from them. */
export async function checkBeacon(file) {
  const { reveal, commitment } = file;
  const seed = Buffer.from(reveal.seed, 'hex');
  let key = seed;
  if (reveal.beacon === 'VERIFIED') {
    if (!commitment.beacon) return 'beacon: VERIFIED for a sale that committed to no round';
    if (reveal.round !== commitment.beacon.round) return `beacon: round ${reveal.round} used, round ${commitment.beacon.round} committed`;
    if (!(await isRoundSignature(commitment.beacon, reveal.round, reveal.signature ?? '')))
      return `beacon: the signature is not the chain's signature of round ${reveal.round}`;
    key = createHmac('sha256', seed).update(Buffer.from(reveal.signature, 'hex')).digest();
  } else if (reveal.beacon === 'MISSING' || reveal.beacon === 'NONE') {
    if (reveal.signature !== null) return `beacon: ${reveal.beacon} yet a signature is given`;
    if (reveal.beacon === 'NONE' && commitment.beacon) return 'beacon: NONE for a sale that committed to a round';
  } else return `beacon: unknown outcome ${JSON.stringify(reveal.beacon)}`;
  if (reveal.shuffleSeed !== key.toString('hex'))
    return `beacon: the shuffle's key is ${reveal.shuffleSeed}, the seed and beacon give ${key.toString('hex')}`;
  return null;
}

async function isRoundSignature(chain, round, signatureHex) {
  if (!/^[0-9a-f]{96}$/.test(signatureHex)) return false;
  let bls;
  try {
    ({ bls12_381: bls } = await import('@noble/curves/bls12-381.js'));
  } catch {
    throw new Error('checking the beacon needs @noble/curves (npm install @noble/curves)');
  }
  const roundBytes = Buffer.alloc(8);
  roundBytes.writeBigUInt64BE(BigInt(round));
  const message = createHash('sha256').update(roundBytes).digest();
  try {
    const short = bls.shortSignatures;
    return short.verify(Buffer.from(signatureHex, 'hex'), short.hash(message, 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_'), Buffer.from(chain.publicKey, 'hex'));
  } catch {
    return false;
  }
}

/** Every ticket's place, recomputed: the pre-queue by HMAC-SHA256(shuffle key, ticketId) ascending, later tickets by arrival. */
export function checkPlaces(file) {
  const { tickets, queue } = file;
  if (tickets.length !== queue.tickets) return `tickets: the file lists ${tickets.length}, the queue took ${queue.tickets}`;
  const key = createSecretKey(Buffer.from(file.reveal.shuffleSeed, 'hex'));
  const pre = [];
  for (let i = 0; i < tickets.length; i++) {
    if (tickets[i].ticketId !== String(i + 1)) return `ticket ${i + 1}: listed as ${JSON.stringify(tickets[i].ticketId)}`;
    if (i < queue.preQueue) pre.push({ id: tickets[i].ticketId, rank: createHmac('sha256', key).update(tickets[i].ticketId, 'utf8').digest('hex') });
  }
  pre.sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
  const expected = new Array(tickets.length);
  pre.forEach((ticket, index) => (expected[Number(ticket.id) - 1] = index + 1));
  for (let i = 0; i < tickets.length; i++) {
    const place = i < queue.preQueue ? expected[i] : i + 1;
    if (tickets[i].place !== place) return `ticket ${i + 1}: place ${tickets[i].place} in the file, ${place} by the seeded order`;
  }
  return null;
}

/** Admission in queue order: places 1..served admitted, each no earlier than the one before; none after. */
export function checkAdmissions(file) {
  const byPlace = new Array(file.tickets.length + 1);
  for (const ticket of file.tickets) byPlace[ticket.place] = ticket;
  let last = -Infinity;
  for (let place = 1; place < byPlace.length; place++) {
    const ticket = byPlace[place];
    const at = ticket.admittedAt === null ? null : Date.parse(ticket.admittedAt);
    if (place <= file.queue.served) {
      if (at === null || Number.isNaN(at)) return `admission: place ${place} (ticket ${ticket.ticketId}) was served but has no admission time`;
      if (at < last) return `admission: place ${place} (ticket ${ticket.ticketId}) admitted at ${ticket.admittedAt}, before the place ahead of it`;
      last = at;
    } else if (at !== null) return `admission: place ${place} (ticket ${ticket.ticketId}) admitted although only ${file.queue.served} places were served`;
  }
  return null;
}

/** The admin actions' chain: the first follows the commitment, each carries the hash of the one before and its own. */
export function checkAdminActions(file) {
  let prev = file.commitment.hash;
  for (let i = 0; i < file.adminActions.length; i++) {
    const { seq, at, action, details, prevHash, hash } = file.adminActions[i];
    if (seq !== i + 1) return `admin action ${i + 1}: numbered ${seq}`;
    if (prevHash !== prev) return `admin action ${seq} (${action}): its previous hash is ${prevHash}, the chain has ${prev}`;
    const actual = sha256(`${prevHash}\n${canonicalJson({ seq, at, action, details })}`);
    if (actual !== hash) return `admin action ${seq} (${action}): its content hashes to ${actual}, the file says ${hash}`;
    prev = hash;
  }
  return null;
}

/** A buyer's own row: the one whose hash is that of their ticket, with the ticket's own number. */
export function findTicket(file, ticket) {
  const hash = sha256(ticket);
  const row = file.tickets.find((t) => t.ticketHash === hash);
  if (!row) return { error: 'ticket: no row of the file has this ticket\'s hash (another product\'s ticket, or one the file leaves out)' };
  const number = ticket.split('.')[3];
  if (number !== undefined && number !== row.ticketId) return { error: `ticket: the row of this ticket's hash is ticket ${row.ticketId}, the ticket says ${number}` };
  return { row };
}
