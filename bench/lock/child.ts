import Redis from 'ioredis';
import { runHotWorkers } from './hot-workers';
import { createLocker } from './lockers';
import { Locker } from './lockers/types';
import { RedisOverlapProbe } from './overlap-probe';
import { CommandTally, plainClient } from './redis-clients';
import { FromChild, ToChild } from './child-protocol';

/**
 * Scenario (c) worker process: builds the contender it is told to and runs its share of the
 * workers. Connections open in `prepare` and close in `close`, both outside the parent's
 * before/after INFO snapshots, so connection chatter never counts as lock commands.
 */
const tally = new CommandTally();
let locker: Locker | undefined;
let bookkeeping: Redis | undefined;

const send = (msg: FromChild): void => void process.send?.(msg);

async function handle(msg: ToChild): Promise<void> {
  switch (msg.type) {
    case 'exit':
      return process.exit(0);
    case 'prepare':
      locker = createLocker(msg.spec, msg.port, tally);
      bookkeeping = plainClient(msg.port);
      await bookkeeping.ping();
      await (await locker.acquire(msg.warmKey, msg.ttlMs)).release();
      tally.reset();
      return send({ type: 'ready' });
    case 'close':
      bookkeeping?.disconnect();
      await locker?.close().catch(() => undefined);
      locker = bookkeeping = undefined;
      return send({ type: 'closed' });
    case 'go': {
      if (!locker || !bookkeeping) throw new Error('go before prepare');
      const run = await runHotWorkers({
        ...msg,
        locker,
        // Redis sees every process, so it alone counts overlaps here (a local counter would double-count)
        probes: [new RedisOverlapProbe(bookkeeping, msg.counterKey)],
      });
      return send({ type: 'done', run, clientCommands: tally.toJSON() });
    }
  }
}

process.on('message', (msg: ToChild) => {
  handle(msg).catch((err: unknown) => send({ type: 'error', message: String(err) }));
});

send({ type: 'booted' });
