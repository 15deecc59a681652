import type { LoggerOptions } from 'pino';
import { ConfigError } from '../config/env.schema';

/**
 * Whether log lines are pretty-printed (pino-pretty: one coloured line per message, local time)
 * rather than JSON. LOG_PRETTY=true or false decides; unset, development at a terminal gets them
 * pretty and everything else (a pipe, a file, a log collector) JSON. Production never does: its
 * log shippers parse JSON, and pino-pretty is a devDependency that the image does not contain, so
 * LOG_PRETTY=true there stops start-up instead of failing at the first line.
 */
export function prettyLogs(env: NodeJS.ProcessEnv, nodeEnv: string, stdoutIsTty: boolean): boolean {
  const raw = env.LOG_PRETTY?.trim();
  if (raw && raw !== 'true' && raw !== 'false')
    throw new ConfigError(`Invalid configuration: LOG_PRETTY must be true or false (got "${raw}")`);
  if (nodeEnv === 'production') {
    if (raw === 'true')
      throw new ConfigError(
        'Invalid configuration: LOG_PRETTY=true is for development; production logs are JSON (and its image has no pino-pretty)',
      );
    return false;
  }
  return raw ? raw === 'true' : nodeEnv === 'development' && stdoutIsTty;
}

/** pino's options for pretty lines: pino-pretty in pino's worker thread, so the event loop never formats. */
export const PRETTY_TRANSPORT: NonNullable<LoggerOptions['transport']> = {
  target: 'pino-pretty',
  options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
};
