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

export function clusterSlot(key: string): number {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  const tagged = open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(tagged, 'utf8')) crc = crc16Step(crc, byte);
  return crc % 16384;
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
      // Base-36 digits are single bytes: no Buffer per tag.
      let crc = 0;
      for (let i = 0; i < tag.length; i++) crc = crc16Step(crc, tag.charCodeAt(i));
      if (tags[crc % 16384] === undefined) {
        tags[crc % 16384] = tag;
        missing--;
      }
    }
    tagsBySlot = tags;
  }
  return tagsBySlot[slot];
}
