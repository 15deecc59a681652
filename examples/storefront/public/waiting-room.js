// The waiting room of one product, as a shopper's page meets it: join the queue, poll the ticket
// when the API says to (pollAfterMs, spread by the API so that pages do not poll in step), and
// hand the page every status, including the admission to buy with once the ticket is ADMITTED.
'use strict';

/**
 * @param {{ apiBase: string, productId: string, token: string,
 *           joinWork?: { squarings: number },
 *           onStatus: (status: object) => void,
 *           onWork?: (progress: { squarings: number, done: number }) => void,
 *           onRefused: (answer: { status?: number, code?: string, message?: string, retryAfterS?: number, requestId?: string, unreachable?: boolean }) => void }} options
 */
window.createWaitingRoom = function createWaitingRoom({ apiBase, productId, token, joinWork, onStatus, onRefused, onWork }) {
  const queueUrl = `${apiBase}/products/${encodeURIComponent(productId)}/queue`;
  /** States after which the ticket never changes: nothing more to poll. */
  const FINAL = new Set(['SOLD_OUT', 'EXPIRED', 'BOUGHT']);
  let current = null;
  let timer = null;

  /**
   * Joins (idempotent: the same shopper gets back the same ticket and place) and starts polling.
   * A product whose waiting room asks a proof of work (waitingRoom.joinWork, or a join answered
   * 403 JOIN_WORK_REQUIRED) gets it: the sale's challenge, this shopper's puzzle made from it with
   * a new nonce, T squarings in this page, then the join with the challenge, nonce and solution.
   * Each join solves anew: a solution joins once.
   */
  async function join() {
    clearTimeout(timer);
    let response;
    try {
      response = await sendJoin(joinWork ? await solvedWork() : undefined);
      if (response.status === 403 && !joinWork) {
        const refusal = await response.clone().json().catch(() => ({}));
        if (refusal.code === 'JOIN_WORK_REQUIRED') response = await sendJoin(await solvedWork());
      }
    } catch (error) {
      if (!error || !error.response) {
        onRefused(error?.refusal ?? { unreachable: true });
        return;
      }
      response = error.response; // the challenge was refused: say why
    }
    await settle(response, false);
  }

  function sendJoin(work) {
    const headers = { authorization: `Bearer ${token}` };
    if (work === undefined) return fetch(queueUrl, { method: 'POST', headers });
    headers['content-type'] = 'application/json';
    return fetch(queueUrl, { method: 'POST', headers, body: JSON.stringify({ work }) });
  }

  /**
   * The sale's challenge (GET, public: the same for every client during its minute, so the browser
   * or a CDN may answer it from its cache), made into this shopper's own puzzle and solved here:
   * { challenge, nonce, solution }. A refused challenge is thrown with its response.
   */
  async function solvedWork() {
    if (!crypto.subtle) throw Object.assign(new Error('no WebCrypto'), { refusal: { message: "This page must be served over https (or from localhost) to work out the queue's entry check." } });
    const response = await fetch(`${queueUrl}/challenge`);
    if (response.status !== 200) throw Object.assign(new Error('challenge refused'), { response });
    const puzzle = await response.json();
    const nonce = newNonce();
    return { challenge: puzzle.challenge, nonce, solution: await solveJoinWork(puzzle, nonce, userIdOf(token)) };
  }

  /** A nonce, new for each join: 16 random bytes in base64url (22 characters). */
  function newNonce() {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  /**
   * The user id the API reads from the token: its payload's `sub` (a JWT is header.payload.signature,
   * each part base64url; the payload is UTF-8 JSON). Only read here, never checked: the API checks the token.
   */
  function userIdOf(jwt) {
    try {
      const bytes = Uint8Array.from(atob(jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const { sub } = JSON.parse(new TextDecoder().decode(bytes));
      return typeof sub === 'string' ? sub : '';
    } catch {
      return ''; // not a JWT: the join is answered 401, which the page shows
    }
  }

  /**
   * The puzzle's base: x = H mod N, where H is the two SHA-512 digests of
   * "<challenge>\n<nonce>\n<user id>\n1" and "...\n2" (UTF-8), one after the other, 1024 bits.
   */
  async function joinWorkBase(challenge, nonce, userId, n) {
    const text = `${challenge}\n${nonce}\n${userId}\n`;
    const hex = async (suffix) => Array.from(new Uint8Array(await crypto.subtle.digest('SHA-512', new TextEncoder().encode(text + suffix))), (b) => b.toString(16).padStart(2, '0')).join('');
    return BigInt(`0x${await hex('1')}${await hex('2')}`) % n;
  }

  /**
   * y = x^(2^T) mod N by T squarings one after the other (BigInt), in slices of a few
   * milliseconds so that the page stays responsive; reports its progress through onWork.
   */
  async function solveJoinWork({ challenge, modulus, squarings }, nonce, userId) {
    const n = BigInt(`0x${modulus}`);
    let y = await joinWorkBase(challenge, nonce, userId, n);
    const SLICE = 2000;
    for (let done = 0; done < squarings; ) {
      if (onWork) onWork({ squarings, done });
      const end = Math.min(squarings, done + SLICE);
      for (; done < end; done++) y = (y * y) % n;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    return y.toString(16);
  }

  async function poll() {
    let response;
    try {
      // The ticket is the credential: a poll needs no token. no-store: every poll is a fresh answer.
      response = await fetch(`${queueUrl}/${encodeURIComponent(current.ticket)}`, { cache: 'no-store' });
    } catch {
      schedule(2000); // a lost poll costs nothing: the ticket keeps its place
      return;
    }
    await settle(response, true);
  }

  async function settle(response, polling) {
    const body = await response.json().catch(() => ({}));
    if (response.status === 200) {
      current = body;
      onStatus(body);
      if (!FINAL.has(body.state)) schedule(body.pollAfterMs);
      return;
    }
    const header = response.headers.get('retry-after');
    const retryAfterS = header === null ? undefined : Number(header);
    // A busy or briefly unavailable API: the place is kept, so a poll just comes back later.
    if (polling && (response.status === 429 || response.status === 503)) {
      schedule((retryAfterS ?? 1) * 1000);
      return;
    }
    onRefused({ status: response.status, code: body.code, message: body.message, retryAfterS, requestId: response.headers.get('x-request-id') });
  }

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, Math.max(100, ms));
  }

  return {
    join,
    /** Polls now (after a purchase, to show BOUGHT, or to learn the admission was given back). */
    refresh: () => (current ? poll() : undefined),
    get status() {
      return current;
    },
  };
};
