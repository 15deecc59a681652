import { closeSync, openSync, readSync } from 'node:fs';
import { HistoryLines, MetaRecord, OpRecord } from './format';

const NEWLINE = 0x0a;

/**
 * Reads a history file as parseHistory reads its text, 64 KB at a time: each chunk, up to its last
 * newline, is decoded as one string and cut into lines there (a newline byte is never part of a
 * multi-byte character), so a million-operation file never lives in memory as one string (half the
 * memory, and a third of the time, of reading it whole) and no line costs a decoding of its own.
 * Chunks that small keep the decoded text in the young generation, where it dies cheaply.
 */
export function readHistoryFile(path: string, chunkBytes = 64 << 10): { meta: MetaRecord; ops: OpRecord[] } {
  const lines = new HistoryLines();
  const fd = openSync(path, 'r');
  try {
    let buf = Buffer.allocUnsafe(chunkBytes);
    let have = 0;
    for (;;) {
      // A line longer than the buffer: grow it.
      if (have === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]);
      const got = readSync(fd, buf, have, buf.length - have, null);
      have += got;
      const end = got === 0 ? have : buf.lastIndexOf(NEWLINE, have - 1) + 1;
      const text = buf.toString('utf8', 0, end);
      for (let start = 0; start < text.length;) {
        let stop = text.indexOf('\n', start);
        if (stop < 0) stop = text.length;
        lines.add(text.slice(start, stop));
        start = stop + 1;
      }
      if (got === 0) break;
      buf.copy(buf, 0, end, have);
      have -= end;
    }
  } finally {
    closeSync(fd);
  }
  return lines.end();
}
