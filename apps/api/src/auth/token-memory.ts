import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { RATE_LIMIT_WINDOW_MS, retryAfterSeconds, windowAt } from '../common/throttling/rate-limiter';
import { AuthUser } from './auth.types';
import { TokenRefusal } from './token-checks';

/** The identity-provider key a token was verified with (kid as the token named it, and the key itself). */
export interface KeyUsed {
  kid: string | undefined;
  pem: string;
}

interface Verified {
  user: AuthUser;
  expiresAtMs: number;
  /** Undefined for keys that cannot leave (JWT_SECRET, JWT_PUBLIC_KEY_FILE). */
  key: KeyUsed | undefined;
}

const MAX_VERIFIED = 50_000;
const MAX_VERIFIED_MS = 300_000;
// Refused tokens are remembered briefly and only when short: an attacker choosing the tokens
// chooses what this memory holds, so it stays a few megabytes at most.
const MAX_REFUSED = 10_000;
const MAX_REFUSED_TOKEN_LENGTH = 1024;
const REFUSED_MS = 60_000;

const MAX_OVER_BUDGET_ADDRESSES = 10_000;

/**
 * What this instance already knows, so that no token costs a second signature check: a verified
 * token until it expires (at most 5 minutes, and only while its key is still in the provider's
 * key set), a refused one for a minute when its refusal is final, and the client addresses it saw
 * spend their failure budget, until that budget's window ends (their tokens are not checked).
 */
export class TokenMemory {
  private readonly verified = new Map<string, Verified>();
  private readonly refused = new Map<string, { refusal: TokenRefusal; untilMs: number }>();
  private readonly overBudgetUntil = new Map<string, number>();

  /** The user of a token verified before, unless it expired or `keyStillHeld` says its key left the key set. */
  verifiedUser(token: string, nowMs: number, keyStillHeld: (key: KeyUsed) => boolean): AuthUser | undefined {
    const entry = this.verified.get(token);
    if (!entry) return undefined;
    if (entry.expiresAtMs > nowMs && (!entry.key || keyStillHeld(entry.key))) return entry.user;
    this.verified.delete(token);
    return undefined;
  }

  rememberVerified(token: string, user: AuthUser, expMs: number, nowMs: number, key: KeyUsed | undefined): void {
    if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
    this.verified.set(token, { user, expiresAtMs: Math.min(expMs, nowMs + MAX_VERIFIED_MS), key });
  }

  refusalOf(token: string, nowMs: number): TokenRefusal | undefined {
    const entry = this.refused.get(token);
    if (!entry) return undefined;
    if (entry.untilMs > nowMs) return entry.refusal;
    this.refused.delete(token);
    return undefined;
  }

  rememberRefused(token: string, refusal: TokenRefusal, nowMs: number): void {
    if (!refusal.final || token.length > MAX_REFUSED_TOKEN_LENGTH) return;
    if (this.refused.size >= MAX_REFUSED) this.refused.clear();
    this.refused.set(token, { refusal, untilMs: nowMs + REFUSED_MS });
  }

  /** The 429 to answer at once for an address seen over its failure budget in the current window (the rate windows' clock, RateClock); else undefined. */
  overBudget(address: string, nowMs: number): AppException | undefined {
    const untilMs = this.overBudgetUntil.get(address);
    if (untilMs === undefined) return undefined;
    if (untilMs > nowMs)
      return new AppException(
        ErrorCode.RateLimited,
        'too many requests without a valid token from this address, slow down',
        retryAfterSeconds(untilMs - nowMs),
      );
    this.overBudgetUntil.delete(address);
    return undefined;
  }

  rememberOverBudget(address: string, nowMs: number): void {
    if (this.overBudgetUntil.size >= MAX_OVER_BUDGET_ADDRESSES) this.overBudgetUntil.clear();
    this.overBudgetUntil.set(address, nowMs + windowAt(nowMs, RATE_LIMIT_WINDOW_MS).msLeft);
  }
}
