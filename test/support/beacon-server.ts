import { createHash } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const DST = 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_';

/**
 * A drand-like beacon of the test's own: a BLS key made here signs each round (SHA-256 of its
 * number, 8 bytes big-endian, hashed to G1) and `GET /public/<round>` answers it once the round is
 * due, as drand's HTTP API does; never the network. A withheld round answers 404 (a beacon late
 * or unreachable) until released.
 */
export class BeaconServer {
  readonly publicKey: string;
  private readonly withheld = new Set<number>();
  /** Rounds asked for, in order. */
  readonly asked: number[] = [];

  private constructor(
    private readonly server: Server,
    private readonly secretKey: Uint8Array,
    readonly genesisS: number,
    readonly periodS: number,
  ) {
    this.publicKey = Buffer.from(bls12_381.shortSignatures.getPublicKey(secretKey).toBytes()).toString('hex');
  }

  static async start(periodS = 1): Promise<BeaconServer> {
    const { secretKey } = bls12_381.shortSignatures.keygen();
    const genesisS = Math.floor(Date.now() / 1000) - 100;
    const server = createServer();
    const beacon = new BeaconServer(server, secretKey, genesisS, periodS);
    server.on('request', (req, res) => {
      const round = Number(/^\/public\/(\d+)$/.exec(req.url ?? '')?.[1]);
      if (round) beacon.asked.push(round);
      if (!round || beacon.withheld.has(round) || Date.now() < beacon.roundTimeMs(round)) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ round, signature: beacon.sign(round), randomness: '' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return beacon;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The app's SALE_BEACON_* for this beacon. */
  env(waitMs: number): Record<string, string> {
    return {
      SALE_BEACON_URL: this.url,
      SALE_BEACON_PUBLIC_KEY: this.publicKey,
      SALE_BEACON_GENESIS_S: String(this.genesisS),
      SALE_BEACON_PERIOD_S: String(this.periodS),
      SALE_BEACON_WAIT_MS: String(waitMs),
    };
  }

  roundTimeMs(round: number): number {
    return (this.genesisS + (round - 1) * this.periodS) * 1000;
  }

  sign(round: number): string {
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64BE(BigInt(round));
    const message = bls12_381.shortSignatures.hash(createHash('sha256').update(bytes).digest(), DST);
    return Buffer.from(bls12_381.shortSignatures.sign(message, this.secretKey).toBytes()).toString('hex');
  }

  withhold(round: number): void {
    this.withheld.add(round);
  }

  release(round: number): void {
    this.withheld.delete(round);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
