import { auditChunks, AuditInput } from './queue-audit';

const ranks = (places: number[]) => {
  const buffer = Buffer.alloc(places.length * 4);
  places.forEach((place, i) => buffer.writeUInt32BE(place, i * 4));
  return buffer;
};

const input = (over: Partial<AuditInput> = {}): AuditInput => ({
  productId: '5',
  nowMs: Date.parse('2026-01-01T00:00:10Z'),
  commitment: null,
  seed: Buffer.alloc(32, 1),
  draw: { beacon: 'MISSING', round: 9, signature: null, shuffleSeed: Buffer.alloc(32, 1) },
  queue: {
    epoch: 'e1',
    pre: 3,
    seq: 5,
    served: 4,
    ranks: ranks([2, 3, 1]),
    admissions: ['1:3:1767225601000', '4:4:1767225602000'],
  },
  ticketHash: (n) => `hash-${n}`,
  adminActions: [],
  ...over,
});

const file = (over?: Partial<AuditInput>) =>
  JSON.parse([...auditChunks(input(over))].join('')) as { reveal: unknown; queue: unknown; tickets: unknown[] };

describe('the audit file', () => {
  it("lists each ticket's hash, its shuffled or arrival place, and when its place was admitted", () => {
    const audit = file();
    expect(audit.reveal).toEqual({
      seed: '01'.repeat(32),
      beacon: 'MISSING',
      round: 9,
      signature: null,
      shuffleSeed: '01'.repeat(32),
    });
    expect(audit.queue).toEqual({ epoch: 'e1', preQueue: 3, tickets: 5, served: 4 });
    expect(audit.tickets).toEqual([
      { ticketId: '1', ticketHash: 'hash-1', place: 2, admittedAt: '2026-01-01T00:00:01.000Z' },
      { ticketId: '2', ticketHash: 'hash-2', place: 3, admittedAt: '2026-01-01T00:00:01.000Z' },
      { ticketId: '3', ticketHash: 'hash-3', place: 1, admittedAt: '2026-01-01T00:00:01.000Z' },
      { ticketId: '4', ticketHash: 'hash-4', place: 4, admittedAt: '2026-01-01T00:00:02.000Z' },
      { ticketId: '5', ticketHash: 'hash-5', place: 5, admittedAt: null },
    ]);
  });

  it('reveals nothing before the draw is decided, while the pre-queue is open, or before its shuffle is stored', () => {
    for (const over of [
      { draw: null },
      { seed: null },
      { queue: { ...input().queue!, pre: -1 } },
      { queue: { ...input().queue!, ranks: Buffer.alloc(0) } },
    ]) {
      expect(file(over)).toMatchObject({ reveal: null, queue: null, tickets: [] });
    }
  });

  it('stays one JSON document when sent in many chunks', () => {
    const seq = 12_001;
    const chunks = [
      ...auditChunks(input({ queue: { epoch: 'e', pre: 0, seq, served: 0, ranks: Buffer.alloc(0), admissions: [] } })),
    ];
    expect(chunks.length).toBeGreaterThan(3);
    expect(JSON.parse(chunks.join('')).tickets).toHaveLength(seq);
  });
});
