import { Env, fail, integer, url } from './env.schema';

/**
 * The public randomness a sale's start shuffle mixes in: a drand chain signing each round's number
 * with BLS on BLS12-381 (`bls-unchained-g1-rfc9380`: signatures on G1, the key on G2). Defaults
 * are drand's quicknet, whose rounds come every 3 s from its genesis.
 */
export interface SaleBeaconConfig {
  /** SALE_BEACON_URL: a drand HTTP API of the chain; the app reads `<url>/public/<round>`. Unset: no fetching (an admin may post the round). */
  url: string | undefined;
  /** SALE_BEACON_PUBLIC_KEY: the chain's group key (G2, 96 bytes compressed), hex. */
  publicKey: string;
  /** SALE_BEACON_GENESIS_S: unix seconds of round 1. */
  genesisS: number;
  /** SALE_BEACON_PERIOD_S: seconds between rounds. */
  periodS: number;
  /** SALE_BEACON_WAIT_MS: how long past its due time the start's shuffle waits for the round before the fallback. */
  waitMs: number;
  /** Each fetch of a round gives up after this. */
  fetchTimeoutMs: number;
}

export const QUICKNET_PUBLIC_KEY =
  '83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a';
export const QUICKNET_GENESIS_S = 1692803367;
export const QUICKNET_PERIOD_S = 3;

const G2_HEX = /^[0-9a-fA-F]{192}$/;

export function loadSaleBeaconConfig(env: Env): SaleBeaconConfig {
  const beaconUrl = env.SALE_BEACON_URL
    ? url(undefined, ['https:', 'http:'])(env.SALE_BEACON_URL, 'SALE_BEACON_URL')
    : undefined;
  const publicKey = env.SALE_BEACON_PUBLIC_KEY || QUICKNET_PUBLIC_KEY;
  if (!G2_HEX.test(publicKey))
    fail('SALE_BEACON_PUBLIC_KEY', 'must be a BLS12-381 G2 public key: 96 bytes, hex', env.SALE_BEACON_PUBLIC_KEY);
  return {
    url: beaconUrl?.replace(/\/+$/, ''),
    publicKey: publicKey.toLowerCase(),
    genesisS: integer(QUICKNET_GENESIS_S, 0, 4_000_000_000)(env.SALE_BEACON_GENESIS_S, 'SALE_BEACON_GENESIS_S'),
    periodS: integer(QUICKNET_PERIOD_S, 1, 3600)(env.SALE_BEACON_PERIOD_S, 'SALE_BEACON_PERIOD_S'),
    // Without a URL nothing fetches the round, so by default nothing is waited for: the sale starts
    // on the fallback at once (an operator who posts rounds by hand sets a wait).
    waitMs: integer(beaconUrl ? 5000 : 0, 0, 600_000)(env.SALE_BEACON_WAIT_MS, 'SALE_BEACON_WAIT_MS'),
    fetchTimeoutMs: 2000,
  };
}
