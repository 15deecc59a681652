// A shopper's own check of their place, in the page with WebCrypto: reads the sale's audit file
// (GET /products/:id/queue/audit) and checks it against the commitment the page noted before the
// shopper joined, then recomputes the shopper's own place from the revealed shuffle key. The
// beacon's BLS signature is the one step left to `npm run verify-queue-order -- --audit` (the page
// carries no pairing library); the page says so.
'use strict';

window.verifyMyPlace = async function verifyMyPlace({ apiBase, productId, ticket, commitmentHash }) {
  const enc = new TextEncoder();
  const hex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
  const unhex = (text) => new Uint8Array(text.match(/../g).map((pair) => parseInt(pair, 16)));
  const sha256 = async (data) => hex(await crypto.subtle.digest('SHA-256', typeof data === 'string' ? enc.encode(data) : data));
  const hmacKey = (raw) => crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const hmac = async (key, text) => hex(await crypto.subtle.sign('HMAC', key, enc.encode(text)));
  const canonical = (v) =>
    v === null || typeof v !== 'object'
      ? JSON.stringify(v)
      : Array.isArray(v)
        ? `[${v.map(canonical).join(',')}]`
        : `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  const mismatch = (why) => ({ ok: false, why });

  const response = await fetch(`${apiBase}/products/${encodeURIComponent(productId)}/queue/audit`, { cache: 'no-store' });
  if (!response.ok) return mismatch(`the audit file could not be read (HTTP ${response.status})`);
  const file = await response.json();
  const { hash, ...fields } = file.commitment || {};
  if (hash !== commitmentHash) return mismatch('the sale commitment differs from the one shown before you joined');
  if ((await sha256(canonical(fields))) !== hash) return mismatch("the commitment's fields do not hash to it");
  if (!file.reveal) return { ok: false, pending: true, why: 'not revealed yet: the sale has not started, or its draw is not decided' };
  const { seed, beacon, signature, shuffleSeed } = file.reveal;
  if ((await sha256(unhex(seed))) !== file.commitment.seedCommitment) return mismatch('the revealed seed does not match its commitment');
  const seedKey = await hmacKey(unhex(seed));
  const key = beacon === 'VERIFIED' ? hex(await crypto.subtle.sign('HMAC', seedKey, unhex(signature))) : seed;
  if (key !== shuffleSeed) return mismatch("the shuffle's key is not the one the seed and beacon give");

  const mine = await sha256(ticket);
  const row = file.tickets.find((t) => t.ticketHash === mine);
  if (!row) return mismatch('your ticket is not in the audit file');
  const number = Number(row.ticketId);
  let place = number;
  if (number <= file.queue.preQueue) {
    // Your place is one more than the pre-queue tickets whose HMAC sorts before yours.
    const shuffle = await hmacKey(unhex(shuffleSeed));
    const own = await hmac(shuffle, row.ticketId);
    const ranks = await Promise.all(file.tickets.slice(0, file.queue.preQueue).map((t) => hmac(shuffle, t.ticketId)));
    place = 1 + ranks.filter((rank) => rank < own).length;
  }
  if (place !== row.place) return mismatch(`the file puts you at place ${row.place}, the seeded order at ${place}`);
  return { ok: true, place, ticketId: row.ticketId, admittedAt: row.admittedAt, beacon };
};
