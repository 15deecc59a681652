// A storefront page on its own origin, calling the flash-sale API with fetch (CORS).
// Settings come from the URL fragment (never sent to a server):
//   index.html#api=http://127.0.0.1:3000&product=42&token=<the shopper's JWT>
'use strict';

(function storefront() {
  const $ = (id) => document.getElementById(id);
  const settings = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
  const apiBase = (settings.api || '').replace(/\/$/, '');

  /** What a shopper is told for each of the contract's error codes. */
  const MESSAGES = {
    SOLD_OUT: 'Sold out: every unit has found a buyer.',
    PER_USER_LIMIT: 'You already have as many as one customer may buy.',
    SALE_NOT_ACTIVE: 'The sale is not open right now.',
    RATE_LIMITED: 'Too many attempts at once. Please wait a moment.',
    LOCK_TIMEOUT: 'Everyone is buying this right now. Please try again in a moment.',
    OVERLOADED: 'The shop is very busy. Please try again in a moment.',
    DEPENDENCY_UNAVAILABLE: 'The shop is having trouble. Please try again shortly.',
    UNAUTHENTICATED: 'Please sign in again: your session is missing or has expired.',
    FORBIDDEN: 'This account may not buy here.',
    PRODUCT_NOT_FOUND: 'This product does not exist.',
    VALIDATION_FAILED: 'The shop could not understand this request.',
    IDEMPOTENCY_KEY_REUSED: 'This purchase was already sent with different details.',
    NOT_ADMITTED: 'This product is sold through a queue: wait for your turn, then buy.',
    JOIN_WORK_INVALID: "The queue did not take this page's entry check (it may have expired): join again.",
    JOIN_CLAIM_REQUIRED: 'This queue is open to verified accounts only: verify your account, then join.',
  };
  const UNREACHABLE = "The shop's API cannot be reached from this page (a network error, or this site is not an allowed origin).";

  // One key per purchase attempt: a retry after Retry-After repeats the attempt (the API answers
  // it once), a new click after a final answer is a new attempt.
  let idempotencyKey = null;
  let retryTimer = null;
  /** The product's waiting room, when it has one (its queue admits buyers in turn). */
  let room = null;
  /** The sale's commitment as the page saw it before the shopper joined: what "Verify my place" checks against. */
  let commitmentHash = null;

  fillSettingsForm();
  if (!apiBase || !settings.product) {
    showProductState('unconfigured', 'Open "Shop settings" below to choose an API and a product.');
    $('settings').open = true;
    return;
  }
  $('buy').addEventListener('click', buy);
  $('join').addEventListener('click', () => {
    $('join').disabled = true;
    room.join();
  });
  $('refresh').addEventListener('click', () => loadProduct('no-cache'));
  $('verify').addEventListener('click', verifyPlace);
  loadProduct('default');

  /**
   * Reads the product. 'no-cache' makes the browser revalidate its copy (If-None-Match: a cheap
   * 304 when the stock has not moved); 'default' lets it reuse a copy younger than max-age.
   */
  async function loadProduct(cache) {
    let response;
    try {
      response = await fetch(`${apiBase}/products/${encodeURIComponent(settings.product)}`, { cache });
    } catch {
      showProductState('unreachable', 'This product cannot be shown right now');
      showOutcome('unreachable', { message: UNREACHABLE });
      return;
    }
    const body = await readJson(response);
    if (!response.ok) {
      showProductState('error', MESSAGES[body.code] || body.message || `HTTP ${response.status}`);
      return;
    }
    $('name').textContent = body.name;
    $('sku').textContent = body.sku;
    $('price').textContent = formatPrice(body.priceCents);
    $('stock').textContent = String(body.stock);
    $('product').dataset.state = body.stock > 0 ? 'available' : 'sold-out';
    if (body.saleCommitment && commitmentHash === null) commitmentHash = body.saleCommitment.hash;
    $('queue-commitment').textContent = commitmentHash || '–';
    if (body.waitingRoom && !room) room = window.createWaitingRoom({ apiBase, productId: settings.product, token: settings.token, joinWork: body.waitingRoom.joinWork, onStatus: showQueue, onRefused: queueRefused, onWork: showWork });
    $('join').hidden = !room;
    $('join').disabled = !settings.token || room?.status !== null;
    $('buy').disabled = retryTimer !== null || !settings.token || (room !== null && room.status?.state !== 'ADMITTED');
    $('refresh').disabled = false;
  }

  /** What a shopper in the queue is told for each ticket state. */
  function queueMessage(status) {
    switch (status.state) {
      case 'WAITING':
        return `You are number ${status.position} in line. Estimated wait: ${formatWait(status.etaS)}.`;
      case 'ADMITTED':
        return `It's your turn: buy before ${new Date(status.admissionExpiresAt).toLocaleTimeString()}.`;
      case 'SOLD_OUT':
        return 'Sold out: every unit found a buyer before your turn came.';
      case 'EXPIRED':
        return 'Your turn passed unused, so your place went to the next shopper in line.';
      default:
        return 'You bought yours: thank you for waiting.';
    }
  }

  function showQueue(status) {
    const queue = $('queue');
    queue.hidden = false;
    queue.dataset.state = status.state;
    queue.dataset.position = String(status.position);
    $('queue-message').textContent = queueMessage(status);
    $('queue-position').textContent = status.state === 'WAITING' ? String(status.position) : '–';
    $('queue-eta').textContent = status.state === 'WAITING' ? formatWait(status.etaS) : '–';
    $('join').disabled = true;
    $('buy').disabled = retryTimer !== null || status.state !== 'ADMITTED';
    if (status.state === 'SOLD_OUT') $('product').dataset.state = 'sold-out';
    $('verify').hidden = commitmentHash === null;
  }

  /** Checks the shopper's own place in the sale's audit file (queue-audit.js) and says what it found. */
  async function verifyPlace() {
    const shown = $('verified');
    shown.hidden = false;
    shown.dataset.state = 'checking';
    shown.textContent = 'Checking your place against the sale’s audit file…';
    let result;
    try {
      result = await window.verifyMyPlace({ apiBase, productId: settings.product, ticket: room.status.ticket, commitmentHash });
    } catch {
      result = { ok: false, pending: true, why: 'the audit file could not be read right now' };
    }
    shown.dataset.state = result.ok ? 'verified' : result.pending ? 'pending' : 'mismatch';
    shown.dataset.place = result.ok ? String(result.place) : '';
    if (!result.ok) {
      shown.textContent = result.pending ? `Not yet: ${result.why}.` : `Mismatch: ${result.why}.`;
      return;
    }
    const when = result.admittedAt ? `, let in at ${new Date(result.admittedAt).toLocaleTimeString()}` : ', not let in yet';
    const beacon =
      result.beacon === 'VERIFIED'
        ? 'The draw mixed in a public beacon round (its signature is checked by npm run verify-queue-order).'
        : result.beacon === 'MISSING'
          ? 'The public beacon was missing at the start: this order rests on the seller’s committed secret alone.'
          : 'This sale had no start draw.';
    shown.textContent = `Verified: you were place ${result.place} in the queue (ticket ${result.ticketId})${when}. ${beacon}`;
    shown.dataset.beacon = result.beacon;
  }

  /** While the page solves the queue's proof of work (a second or so on a computer, a few on a phone). */
  function showWork({ squarings, done }) {
    $('queue').hidden = false;
    $('queue').dataset.state = 'WORKING';
    $('queue-message').textContent = `Getting you a place in the queue… ${Math.floor((100 * done) / squarings)}%`;
  }

  function queueRefused(answer) {
    $('join').disabled = false;
    if (answer.unreachable) showOutcome('unreachable', { message: UNREACHABLE });
    else showOutcome(answer.status === 503 || answer.status === 429 ? 'retry' : 'refused', { ...answer, message: MESSAGES[answer.code] || answer.message || `HTTP ${answer.status}` });
  }

  function formatWait(seconds) {
    if (seconds < 60) return `about ${Math.max(1, Math.round(seconds))} s`;
    return `about ${Math.round(seconds / 60)} min`;
  }

  async function buy() {
    idempotencyKey = idempotencyKey || crypto.randomUUID();
    $('buy').disabled = true;
    let response;
    try {
      response = await fetch(`${apiBase}/products/${encodeURIComponent(settings.product)}/purchase`, {
        method: 'POST',
        headers: purchaseHeaders(),
        body: JSON.stringify({ quantity: 1 }),
      });
    } catch {
      // Unknown whether it was sold: keep the key, so trying again cannot buy twice.
      showOutcome('unreachable', { message: UNREACHABLE });
      $('buy').disabled = false;
      return;
    }
    const body = await readJson(response);
    const details = { status: response.status, requestId: response.headers.get('x-request-id') };
    if (response.status === 201) {
      idempotencyKey = null;
      room?.refresh(); // the ticket now reads BOUGHT
      showOutcome('ok', { ...details, message: `Order ${body.id} is yours: pay before ${new Date(body.expiresAt).toLocaleTimeString()}.` });
    } else if (response.status === 429 || response.status === 503) {
      // Readable across origins only because the API exposes it (Access-Control-Expose-Headers).
      const header = response.headers.get('retry-after');
      const retryAfterS = header === null ? undefined : Number(header);
      const when = retryAfterS === undefined ? 'shortly' : `in ${retryAfterS} s`;
      showOutcome('retry', { ...details, code: body.code, retryAfterS, message: `${MESSAGES[body.code] || body.message} Try again ${when}.` });
      waitBeforeRetry(retryAfterS ?? 1);
      return;
    } else {
      idempotencyKey = null;
      showOutcome('refused', { ...details, code: body.code, message: MESSAGES[body.code] || body.message || `HTTP ${response.status}` });
    }
    await loadProduct('no-cache');
  }

  /** An admitted shopper's purchase carries the admission the queue handed out. */
  function purchaseHeaders() {
    const headers = { authorization: `Bearer ${settings.token}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey };
    if (room?.status?.admission) headers.admission = room.status.admission;
    return headers;
  }

  /** The Buy button comes back once Retry-After has passed; the retry reuses the attempt's key. */
  function waitBeforeRetry(seconds) {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      $('buy').disabled = room !== null && room.status?.state !== 'ADMITTED';
    }, seconds * 1000);
  }

  function showOutcome(state, { message, status, code, retryAfterS, requestId }) {
    const outcome = $('outcome');
    outcome.hidden = false;
    outcome.dataset.state = state;
    outcome.dataset.status = status === undefined ? '' : String(status);
    outcome.dataset.code = code || '';
    outcome.dataset.retryAfter = retryAfterS === undefined ? '' : String(retryAfterS);
    $('outcome-message').textContent = message;
    $('outcome-status').textContent = status === undefined ? '–' : String(status);
    $('outcome-code').textContent = code || '–';
    $('outcome-retry-after').textContent = retryAfterS === undefined ? '–' : `${retryAfterS} s`;
    $('outcome-request-id').textContent = requestId || '–';
  }

  function showProductState(state, message) {
    $('product').dataset.state = state;
    $('name').textContent = message;
    $('buy').disabled = true;
  }

  async function readJson(response) {
    try {
      return await response.json();
    } catch {
      return {};
    }
  }

  function formatPrice(cents) {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' }).format(cents / 100);
  }

  function fillSettingsForm() {
    const form = $('settings-form');
    for (const name of ['api', 'product', 'token']) form.elements[name].value = settings[name] || '';
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const next = new URLSearchParams();
      for (const name of ['api', 'product', 'token']) if (form.elements[name].value) next.set(name, form.elements[name].value.trim());
      location.hash = next.toString();
      location.reload();
    });
  }
})();
