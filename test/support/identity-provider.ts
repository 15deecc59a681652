import { generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type Algorithm = 'RS256' | 'ES256';
const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

export interface SigningKey {
  kid: string;
  algorithm: Algorithm;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function signingKey(kid: string, algorithm: Algorithm): SigningKey {
  const pair = algorithm === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, algorithm, ...pair };
}

/** A JWT signed with `key` (RS256, or ES256 in JOSE's r||s form); `header` overrides the header's fields. */
export function signJwt(key: Pick<SigningKey, 'algorithm' | 'privateKey'> & { kid?: string }, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const head = b64url(JSON.stringify({ alg: key.algorithm, typ: 'JWT', ...(key.kid ? { kid: key.kid } : {}), ...header }));
  const body = b64url(JSON.stringify(claims));
  const input = Buffer.from(`${head}.${body}`);
  const signature = key.algorithm === 'RS256' ? sign('sha256', input, key.privateKey) : sign('sha256', input, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${head}.${body}.${b64url(signature)}`;
}

/** Standard claims valid for an hour from now. */
export const claimsFor = (sub: string, extra: Record<string, unknown> = {}): Record<string, unknown> => {
  const now = Math.floor(Date.now() / 1000);
  return { sub, iat: now, exp: now + 3600, ...extra };
};

/** An identity provider's JWKS endpoint, served by the test on a free port; it counts the requests it gets. */
export class JwksServer {
  requests = 0;
  /** When the last request arrived (ms since the epoch). */
  lastRequestAt = 0;
  /** Sent as the answer's Cache-Control header when set. */
  cacheControl: string | undefined;
  /** While true, every request is answered 503 (the provider is down). */
  failing = false;
  private readonly server: Server;

  private constructor(public keys: SigningKey[]) {
    this.server = createServer((_req, res) => {
      this.requests++;
      this.lastRequestAt = Date.now();
      if (this.failing) return void res.writeHead(503).end();
      if (this.cacheControl) res.setHeader('cache-control', this.cacheControl);
      const body = JSON.stringify({ keys: this.keys.map((k) => ({ ...k.publicKey.export({ format: 'jwk' }), kid: k.kid, alg: k.algorithm, use: 'sig' })) });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  }

  static async start(keys: SigningKey[]): Promise<JwksServer> {
    const idp = new JwksServer(keys);
    await new Promise<void>((resolve) => idp.server.listen(0, '127.0.0.1', resolve));
    return idp;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/.well-known/jwks.json`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The PEM text of a public key (what JWT_PUBLIC_KEY_FILE holds). */
export const publicPem = (key: SigningKey): string => key.publicKey.export({ type: 'spki', format: 'pem' }).toString();
