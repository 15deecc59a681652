import type { IncomingMessage } from 'node:http';
import { requestIdOf } from './edge-hooks';

const request = (id?: string): IncomingMessage =>
  ({ headers: id === undefined ? {} : { 'x-request-id': id } }) as IncomingMessage;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdOf', () => {
  it.each(['3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f', '01HZX3K9Q7', 'trace:abc.def_1-2', 'a+b/c==', 'x'.repeat(128)])(
    'keeps the caller id %s',
    (id) => {
      expect(requestIdOf(request(id))).toBe(id);
    },
  );

  it.each([
    ['too long', 'x'.repeat(129)],
    ['empty', ''],
    ['spaces', 'a b'],
    ['a line break', 'abc\ninjected'],
    ['several ids joined', 'one, two'],
    ['quotes', '"quoted"'],
  ])('replaces an id with %s by a new UUID', (_why, id) => {
    expect(requestIdOf(request(id))).toMatch(UUID);
  });

  it('generates a UUID when none is sent, a different one per request', () => {
    const [a, b] = [requestIdOf(request()), requestIdOf(request())];
    expect(a).toMatch(UUID);
    expect(b).toMatch(UUID);
    expect(a).not.toBe(b);
  });
});
