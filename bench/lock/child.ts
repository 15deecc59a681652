import { runHotWorkers } from './hot-workers';
import { createLocker } from './lockers';
import { Locker } from './lockers/types';
import { CommandTally } from './redis-clients';
import { FromChild, ToChild } from './child-protocol';

/**
 * Scenario (c) worker process: builds the contender it is told to and runs its share of the
 * workers. Connections open in `prepare` and close in `close`, both outside the parent's
 * before/after INFO snapshots, so connection chatter never counts as lock commands.
 */
const tally = new CommandTally();
let locker: Locker | undefined;

const send = (msg: FromChild): void => void process.send?.(msg);

async function handle(msg: ToChild): Promise<void> {
  switch (msg.type) {
    case 'exit':
      return process.exit(0);
    case 'prepare':
      locker = createLocker(msg.spec, msg.port, tally);
      await (await locker.acquire(msg.warmKey, msg.ttlMs)).release();
      tally.reset();
      return send({ type: 'ready' });
    case 'close':
      await locker?.close().catch(() => undefined);
      locker = undefined;
      return send({ type: 'closed' });
    case 'go': {
      if (!locker) throw new Error('go before prepare');
      const run = await runHotWorkers({
        ...msg,
        locker,
        // Overlaps across processes are found afterwards from the merged section records: a probe
        // sending Redis commands inside the section would lengthen it (a socket write costs ~0.2 ms here).
        probes: [],
      });
      return send({ type: 'done', run, clientCommands: tally.toJSON() });
    }
  }
}

process.on('message', (msg: ToChild) => {
  handle(msg).catch((err: unknown) => send({ type: 'error', message: String(err) }));
});

send({ type: 'booted' });
