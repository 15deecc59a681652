import { Writable } from 'node:stream';
import pino from 'pino';
import { AppLogger } from '../logging/app-logger';
import { requestLogLevel } from './edge-hooks';

describe('requestLogLevel', () => {
  it('keeps successes and the routine refusals of a sale at debug', () => {
    for (const status of [200, 201, 409, 429]) expect(requestLogLevel(status)).toBe('debug');
  });

  it('logs other client errors at info and server errors at error', () => {
    for (const status of [400, 401, 404, 422]) expect(requestLogLevel(status)).toBe('info');
    for (const status of [500, 503]) expect(requestLogLevel(status)).toBe('error');
  });
});

describe('AppLogger', () => {
  function capture(level: string): { logger: AppLogger; lines: () => Array<Record<string, unknown>> } {
    const chunks: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (chunks.push(String(chunk)), done()) });
    return {
      logger: new AppLogger(pino({ level }, sink)),
      lines: () =>
        chunks
          .join('')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
    };
  }

  it('writes Nest messages as JSON lines with their context', () => {
    const { logger, lines } = capture('info');
    logger.log('Nest application successfully started', 'NestApplication');
    logger.warn('rate limit skipped: redis unavailable', 'UserThrottlerGuard');
    expect(lines()).toEqual([
      expect.objectContaining({ level: 30, context: 'NestApplication', msg: 'Nest application successfully started' }),
      expect.objectContaining({
        level: 40,
        context: 'UserThrottlerGuard',
        msg: 'rate limit skipped: redis unavailable',
      }),
    ]);
  });

  it('keeps the stack Nest passes with an error, and drops what is below the level', () => {
    const { logger, lines } = capture('warn');
    logger.log('not written', 'Somewhere');
    logger.error('boom', 'Error: boom\n    at here', 'Errors');
    expect(lines()).toEqual([
      expect.objectContaining({ level: 50, context: 'Errors', stack: 'Error: boom\n    at here', msg: 'boom' }),
    ]);
  });
});
