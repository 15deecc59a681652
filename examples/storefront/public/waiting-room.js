// The waiting room of one product, as a shopper's page meets it: join the queue, poll the ticket
// when the API says to (pollAfterMs, spread by the API so that pages do not poll in step), and
// hand the page every status, including the admission to buy with once the ticket is ADMITTED.
'use strict';

/**
 * @param {{ apiBase: string, productId: string, token: string,
 *           onStatus: (status: object) => void,
 *           onRefused: (answer: { status?: number, code?: string, message?: string, retryAfterS?: number, requestId?: string, unreachable?: boolean }) => void }} options
 */
window.createWaitingRoom = function createWaitingRoom({ apiBase, productId, token, onStatus, onRefused }) {
  const queueUrl = `${apiBase}/products/${encodeURIComponent(productId)}/queue`;
  /** States after which the ticket never changes: nothing more to poll. */
  const FINAL = new Set(['SOLD_OUT', 'EXPIRED', 'BOUGHT']);
  let current = null;
  let timer = null;

  /** Joins (idempotent: the same shopper gets back the same ticket and place) and starts polling. */
  async function join() {
    clearTimeout(timer);
    let response;
    try {
      response = await fetch(queueUrl, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    } catch {
      onRefused({ unreachable: true });
      return;
    }
    await settle(response, false);
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
