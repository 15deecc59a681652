import { clientAddressKey, UNKNOWN_CLIENT } from './client-address-key';

describe('the key a per-address budget counts a client by', () => {
  it('keeps an IPv4 address whole, whatever the IPv6 prefix', () => {
    expect(clientAddressKey('203.0.113.7', 64)).toBe('203.0.113.7');
    expect(clientAddressKey('203.0.113.7', 48)).toBe('203.0.113.7');
  });

  it('counts an IPv6 address by its /64 by default, in one canonical form however it is written', () => {
    const forms = [
      '2001:db8:0:1::5',
      '2001:DB8:0:1:0:0:0:5',
      '2001:0db8:0000:0001:ffff:ffff:ffff:ffff',
      '2001:db8::1:abcd:0:0:1',
      '2001:db8:0:1:1:2:1.2.3.4',
    ];
    for (const address of forms) expect(clientAddressKey(address, 64)).toBe('2001:db8:0:1::/64');
    expect(clientAddressKey('2001:db8:0:2::5', 64)).toBe('2001:db8:0:2::/64');
  });

  it('drops a zone id: it names an interface of this host, not a client', () => {
    expect(clientAddressKey('fe80::1:2:3:4%eth0', 64)).toBe('fe80::/64');
    expect(clientAddressKey('fe80::1%25', 128)).toBe('fe80::1/128');
  });

  it('takes an IPv4-mapped address as the IPv4 address it carries', () => {
    expect(clientAddressKey('::ffff:198.51.100.9', 64)).toBe('198.51.100.9');
    expect(clientAddressKey('::FFFF:c633:6409', 64)).toBe('198.51.100.9');
    expect(clientAddressKey('0:0:0:0:0:ffff:198.51.100.9', 48)).toBe('198.51.100.9');
    // Not mapped: another /96 that merely ends in an IPv4 address.
    expect(clientAddressKey('64:ff9b::198.51.100.9', 64)).toBe('64:ff9b::/64');
  });

  it('masks to the prefix it is given, from 48 to a whole address at 128', () => {
    const address = '2001:db8:abcd:1234:5678:9abc:def0:1';
    expect(clientAddressKey(address, 48)).toBe('2001:db8:abcd::/48');
    expect(clientAddressKey('2001:db8:abcd:ffff::1', 48)).toBe('2001:db8:abcd::/48');
    expect(clientAddressKey(address, 56)).toBe('2001:db8:abcd:1200::/56');
    expect(clientAddressKey(address, 64)).toBe('2001:db8:abcd:1234::/64');
    expect(clientAddressKey(address, 128)).toBe('2001:db8:abcd:1234:5678:9abc:def0:1/128');
    expect(clientAddressKey('2001:db8::5678:0:0:1', 128)).toBe('2001:db8::5678:0:0:1/128');
  });

  it('writes zero runs as RFC 5952 does: the longest of two or more, the first of equals', () => {
    expect(clientAddressKey('2001:db8:0:0:1:0:0:1', 128)).toBe('2001:db8::1:0:0:1/128');
    expect(clientAddressKey('2001:0:0:1:0:0:0:1', 128)).toBe('2001:0:0:1::1/128');
    expect(clientAddressKey('2001:db8:0:1:1:1:1:1', 128)).toBe('2001:db8:0:1:1:1:1:1/128');
    expect(clientAddressKey('::1', 128)).toBe('::1/128');
    expect(clientAddressKey('::', 64)).toBe('::/64');
  });

  it('puts a missing or malformed address in one shared bucket instead of a new one each', () => {
    for (const junk of [
      undefined,
      '',
      'unknown',
      '01.2.3.4',
      '1.2.3',
      '1::2::3',
      '[::1]',
      '2001:db8::/64',
      'x'.repeat(300),
    ])
      expect(clientAddressKey(junk, 64)).toBe(UNKNOWN_CLIENT);
  });
});
