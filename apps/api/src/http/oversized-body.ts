import { PassThrough, Readable } from 'node:stream';
import { errorCodes, type FastifyInstance, type FastifyReply } from 'fastify';

/** How much of an oversized body is read and thrown away before the 413, and for how long. */
export interface DrainBounds {
  bytes: number;
  ms: number;
}

/** The bounds for a limit: 16 bodies' worth, at least 4 MiB, for at most 5 s. */
export const drainBoundsFor = (limitBytes: number): DrainBounds => ({ bytes: Math.max(16 * limitBytes, 4 * 1024 * 1024), ms: 5000 });

const tooLarge = (): Error => new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();

/**
 * Delivers the 413 for a body over the limit to a client that is still sending it. Answering at
 * once and closing (what the framework does) makes the server's kernel reset the connection while
 * the client's bytes keep arriving: the client sees EPIPE or ECONNRESET, often before it has read
 * the 413. So the rest of the body is read and discarded first, up to `bounds`, and only then is
 * the 413 sent; a body that ends within the bounds leaves a clean connection. Past the bounds the
 * answer goes out with `Connection: close` and nothing more is read (a client sending a huge body
 * may then meet the reset; it cannot make the server read forever).
 *
 * A declared Content-Length over the limit is refused without passing anything on; a chunked
 * body is passed to the parser up to the limit, then discarded the same way.
 */
export function installOversizedBodyDrain(fastify: FastifyInstance, defaultLimitBytes: number): void {
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    // A route may set its own limit; the server's applies otherwise.
    const limitBytes = request.routeOptions.bodyLimit ?? defaultLimitBytes;
    const bounds = drainBoundsFor(limitBytes);
    const declared = Number(request.headers['content-length']);
    if (declared > limitBytes) {
      void discardRest(payload, 0, bounds).then((complete) => {
        if (!complete) closeAfterAnswer(reply);
        done(tooLarge());
      });
      return;
    }
    if (request.headers['transfer-encoding'] === undefined) return done(null, payload);
    done(null, cappedBody(payload, limitBytes, bounds, () => closeAfterAnswer(reply)));
  });
}

const closeAfterAnswer = (reply: FastifyReply): void => void reply.header('connection', 'close');

/**
 * Reads and drops what is left of `source`. Resolves true when it ended within the bounds, false
 * when they ran out (or the stream failed); either way it stops reading.
 */
function discardRest(source: Readable, alreadySeen: number, bounds: DrainBounds): Promise<boolean> {
  return new Promise((resolve) => {
    if (source.readableEnded) return resolve(true);
    let seen = alreadySeen;
    const settle = (complete: boolean): void => {
      clearTimeout(timer);
      source.off('data', onData).off('end', onEnd).off('error', onFailure).off('close', onFailure);
      if (!complete) source.pause();
      resolve(complete);
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen > bounds.bytes) settle(false);
    };
    const onEnd = (): void => settle(true);
    const onFailure = (): void => settle(false);
    const timer = setTimeout(onFailure, bounds.ms);
    source.on('data', onData).on('end', onEnd).on('error', onFailure).on('close', onFailure);
    source.resume();
  });
}

/**
 * The body as the parser sees it: `source` up to `limitBytes`; past that, the rest is discarded
 * (discardRest) and the stream fails with the 413 error once it ended or the bounds ran out.
 */
function cappedBody(source: Readable, limitBytes: number, bounds: DrainBounds, onTruncated: () => void): Readable {
  const body = new PassThrough();
  let seen = 0;
  const onData = (chunk: Buffer): void => {
    seen += chunk.length;
    if (seen <= limitBytes) return void body.write(chunk);
    source.off('data', onData).off('end', onEnd).off('error', onError);
    source.pause();
    void discardRest(source, seen, bounds).then((complete) => {
      if (!complete) onTruncated();
      body.destroy(tooLarge());
    });
  };
  const onEnd = (): void => void body.end();
  const onError = (error: Error): void => void body.destroy(error);
  source.on('data', onData).on('end', onEnd).on('error', onError);
  return body;
}
