import { clientKey } from '../../../src/http/client-key';

describe('clientKey: who a remote address counts as for per-client limits', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.2', '127.0.0.2'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('%s counts as %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });

  it('puts every address of one IPv6 /64 together, and different /64s apart', () => {
    expect(clientKey('2001:db8:1:2::7')).toBe(clientKey('2001:db8:1:2:dead:beef:0:1'));
    expect(clientKey('2001:db8:1:3::7')).not.toBe(clientKey('2001:db8:1:2::7'));
  });
});
