import Redis from 'ioredis';

/** Commands a contender sent, by name, counted on the client side (Lua inner calls excluded). */
export class CommandTally {
  readonly byName = new Map<string, number>();

  add(name: string): void {
    this.byName.set(name, (this.byName.get(name) ?? 0) + 1);
  }

  total(): number {
    let sum = 0;
    for (const n of this.byName.values()) sum += n;
    return sum;
  }

  reset(): void {
    this.byName.clear();
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries(this.byName);
  }
}

type SendCommand = Redis['sendCommand'];

/**
 * An ioredis client whose every command (and those of its duplicates, e.g. a subscriber
 * connection a library opens) lands in `tally`. INFO at connect time lands there too, so
 * callers reset the tally after warm-up.
 */
export function countedClient(port: number, tally: CommandTally): Redis {
  return instrument(new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 }), tally);
}

function instrument(client: Redis, tally: CommandTally): Redis {
  const send: SendCommand = client.sendCommand.bind(client);
  client.sendCommand = ((command, stream) => {
    tally.add(command.name);
    return send(command, stream);
  }) as SendCommand;
  const duplicate = client.duplicate.bind(client);
  client.duplicate = ((override) => instrument(duplicate(override), tally)) as Redis['duplicate'];
  return client;
}

/** A connection for the harness's own bookkeeping; never counted. */
export function plainClient(port: number): Redis {
  return new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
}
