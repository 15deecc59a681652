// Redis Cluster's slot of a key: CRC16 (XMODEM) of its hash tag, modulo 16384. Needed to know
// whether several keys can go into one script on a Cluster.
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff];
  return crc;
}

export function clusterSlot(key: string): number {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  const tagged = open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(Buffer.from(tagged, 'utf8')) % 16384;
}
