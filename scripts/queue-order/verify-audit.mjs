// The whole check of an audit file, as verify-queue-order --audit runs it: the checks of
// audit-checks.mjs in order, stopping at the first mismatch. Answers { status, lines }: 0 and what
// was verified (warnings included), 1 and the mismatch named, 2 for a file that is not an audit.
import {
  checkAdminActions,
  checkAdmissions,
  checkBeacon,
  checkCommitment,
  checkPlaces,
  checkSeed,
  findTicket,
} from './audit-checks.mjs';

const FORMAT = 'flash-sale-queue-audit/1';
const QUICKNET_KEY =
  '83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a';

export async function verifyAudit(text, promisedCommitment, ticket) {
  let file;
  try {
    file = JSON.parse(text);
  } catch (error) {
    return { status: 2, lines: [`not JSON: ${error.message}`] };
  }
  if (file?.format !== FORMAT) return { status: 2, lines: [`not an audit file of format ${FORMAT}`] };
  const fail = (why) => ({ status: 1, lines: [`FAIL ${why}`] });
  const lines = [];
  const committed = checkCommitment(file, promisedCommitment);
  if (committed) return fail(committed);
  lines.push(`commitment ${file.commitment.hash}: ${promisedCommitment ? 'the one published before the joins' : 'consistent (pass --sale-commitment with the hash seen before joining to tie it to that moment)'}`);
  if (file.commitment.beacon && file.commitment.beacon.publicKey !== QUICKNET_KEY)
    lines.push("WARNING: the committed beacon chain is not drand quicknet's (its key differs): check that it is a chain you trust");
  if (!file.reveal) {
    lines.push('not revealed yet (before the start, or before the draw): only the commitment and admin actions are checked');
  } else {
    for (const check of [checkSeed, checkBeacon, checkPlaces, checkAdmissions]) {
      const mismatch = await check(file);
      if (mismatch) return fail(mismatch);
    }
    lines.push(`seed: matches its commitment`);
    lines.push(
      file.reveal.beacon === 'VERIFIED'
        ? `beacon: round ${file.reveal.round} signed by the committed chain, mixed with the seed`
        : file.reveal.beacon === 'MISSING'
          ? `WARNING beacon MISSING: round ${file.commitment.beacon.round} was not had by the deadline; by the documented fallback the order rests on the operator's seed alone`
          : 'beacon: NONE (the sale committed to no round: no start shuffle)',
    );
    lines.push(`places: ${file.tickets.length} tickets (${file.queue.preQueue} shuffled at the start) in the seeded order; ${file.queue.served} admitted in queue order`);
  }
  const chained = checkAdminActions(file);
  if (chained) return fail(chained);
  lines.push(`admin actions: ${file.adminActions.length} in an unbroken hash chain from the commitment`);
  if (ticket !== undefined) {
    const found = findTicket(file, ticket);
    if (found.error) return fail(found.error);
    const { row } = found;
    lines.push(`YOUR TICKET ${row.ticketId}: place ${row.place ?? 'not yet known'}, ${row.admittedAt ? `admitted at ${row.admittedAt}` : 'not admitted yet'}`);
  }
  return { status: 0, lines: ['PASS', ...lines] };
}
