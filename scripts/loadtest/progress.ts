import { ProgressSnapshot } from './types';

export function formatProgress(p: ProgressSnapshot): string {
  return `${p.elapsedS.toFixed(0).padStart(4)}s  requests ${p.requests}  201 ${p.created}  409 ${p.conflicts}  503 ${p.unavailable}  ${p.rps.toFixed(0)} req/s`;
}

/** One line rewritten in place on a terminal; a plain line per second when piped (CI logs). */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): {
  onProgress: (p: ProgressSnapshot) => void;
  done: () => void;
} {
  let wrote = false;
  return {
    onProgress: (p) => {
      wrote = true;
      if (stream.isTTY) stream.write(`\r\x1b[2K${formatProgress(p)}`);
      else stream.write(`${formatProgress(p)}\n`);
    },
    done: () => {
      if (wrote && stream.isTTY) stream.write('\n');
    },
  };
}
