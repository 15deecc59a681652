import { LoggerService } from '@nestjs/common';
import pino, { Level, Logger } from 'pino';
import { PRETTY_TRANSPORT } from './pretty-logs';

/** The process's one pino logger: JSON lines on stdout at LOG_LEVEL, or pretty ones (pretty-logs.ts). */
export function createRootLogger(level: string, pretty = false): Logger {
  return pino({ level, ...(pretty && { transport: PRETTY_TRANSPORT }) });
}

type NestLevel = 'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal';
const PINO_LEVEL: Record<NestLevel, Level> = {
  log: 'info',
  error: 'error',
  warn: 'warn',
  debug: 'debug',
  verbose: 'trace',
  fatal: 'fatal',
};

/**
 * Nest's own messages (start-up, our `new Logger(...)` calls) as pino lines with their context,
 * e.g. `{"level":40,"context":"Errors","msg":"503 ..."}`. A message below the level costs one
 * comparison.
 */
export class AppLogger implements LoggerService {
  constructor(readonly pino: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(nestLevel: NestLevel, message: unknown, params: unknown[]): void {
    const level = PINO_LEVEL[nestLevel];
    if (!this.pino.isLevelEnabled(level)) return;
    // Nest passes the context last; error() may pass a stack before it.
    const context =
      params.length && typeof params[params.length - 1] === 'string'
        ? (params[params.length - 1] as string)
        : undefined;
    const stack = nestLevel === 'error' && params.length === 2 && typeof params[0] === 'string' ? params[0] : undefined;
    const fields: Record<string, unknown> = context ? { context } : {};
    if (stack) fields.stack = stack;
    if (message instanceof Error) this.pino[level]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.pino[level]({ ...fields, ...(message as object) });
    else this.pino[level](fields, String(message));
  }
}
