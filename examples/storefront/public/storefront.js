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
  };
  const UNREACHABLE = "The shop's API cannot be reached from this page (a network error, or this site is not an allowed origin).";

  // One key per purchase attempt: a retry after Retry-After repeats the attempt (the API answers
  // it once), a new click after a final answer is a new attempt.
  let idempotencyKey = null;
  let retryTimer = null;

  fillSettingsForm();
  if (!apiBase || !settings.product) {
    showProductState('unconfigured', 'Open "Shop settings" below to choose an API and a product.');
    $('settings').open = true;
    return;
  }
  $('buy').addEventListener('click', buy);
  $('refresh').addEventListener('click', () => loadProduct('no-cache'));
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
    $('buy').disabled = retryTimer !== null || !settings.token;
    $('refresh').disabled = false;
  }

  async function buy() {
    idempotencyKey = idempotencyKey || crypto.randomUUID();
    $('buy').disabled = true;
    let response;
    try {
      response = await fetch(`${apiBase}/products/${encodeURIComponent(settings.product)}/purchase`, {
        method: 'POST',
        headers: { authorization: `Bearer ${settings.token}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
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

  /** The Buy button comes back once Retry-After has passed; the retry reuses the attempt's key. */
  function waitBeforeRetry(seconds) {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      $('buy').disabled = false;
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
