import { encodeKeySegment } from './lock-key.resolver';

describe('encodeKeySegment', () => {
  it('leaves ordinary identifiers as they are', () => {
    expect(encodeKeySegment('42')).toBe('42');
    expect(encodeKeySegment('SKU-9_a.b')).toBe('SKU-9_a.b');
  });

  it.each([':', '{', '}', '*', '?', '[', ']', ' ', '\t', '\n', '%', '\\', '\u00a0', '\u0000'])(
    'escapes %p',
    (character) => {
      const encoded = encodeKeySegment(`a${character}b`);
      expect(encoded.replace(/%[0-9A-F]{2}/g, '')).not.toContain(character);
      expect(decodeURIComponent(encoded)).toBe(`a${character}b`);
    },
  );

  it('never maps two different values to the same segment', () => {
    const values = [
      '1:2',
      '1%3A2',
      '1%253A2',
      '1',
      '2',
      '1 2',
      '1%202',
      '{1}',
      '%7B1%7D',
      'a*',
      'a%2A',
      'é',
      '%C3%A9',
      '',
    ];
    const encoded = values.map(encodeKeySegment);
    expect(new Set(encoded).size).toBe(values.length);
  });

  it('makes stock:<id> with id "1:2" differ from any key built from two segments', () => {
    expect(`stock:${encodeKeySegment('1:2')}`).not.toBe(`stock:${encodeKeySegment('1')}:${encodeKeySegment('2')}`);
  });
});
