// Redis Cluster's slot of a key: CRC16 (XMODEM) of its hash tag, modulo 16384. Needed to know
// whether several keys can go into one script on a Cluster, and to name a slot's fence counter.
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

function crc16Step(crc: number, byte: number): number {
  return ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff];
}

function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) crc = crc16Step(crc, byte);
  return crc;
}

/** The same over a string of single-byte characters, without a Buffer per call (slot tags). */
function crc16Ascii(text: string): number {
  let crc = 0;
  for (let i = 0; i < text.length; i++) crc = crc16Step(crc, text.charCodeAt(i));
  return crc;
}

export function clusterSlot(key: string): number {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  const tagged = open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(Buffer.from(tagged, 'utf8')) % 16384;
}

let tagsBySlot: string[] | undefined;

/**
 * A short hash tag that lands in the given slot, so a name built on it shares that slot (the
 * fence counter of every lock key in the slot). Built once on first use: CRC16s of short base-36
 * strings until every slot has one (~170,000 of them, a few ms).
 */
export function slotTag(slot: number): string {
  if (!tagsBySlot) {
    const tags: string[] = new Array<string>(16384);
    let missing = 16384;
    for (let n = 0; missing > 0; n++) {
      const tag = n.toString(36);
      const s = crc16Ascii(tag) % 16384;
      if (tags[s] === undefined) {
        tags[s] = tag;
        missing--;
      }
    }
    tagsBySlot = tags;
  }
  return tagsBySlot[slot];
}
