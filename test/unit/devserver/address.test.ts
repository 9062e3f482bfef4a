import { parseAddress } from '../../../dev/devserver/address';

describe('parseAddress', () => {
  it('splits host and port', () => {
    expect(parseAddress('localhost:7233')).toEqual({ host: 'localhost', port: 7233 });
    expect(parseAddress('127.0.0.1:17233')).toEqual({ host: '127.0.0.1', port: 17233 });
  });

  it.each(['localhost', ':7233', 'localhost:0', 'localhost:70000', 'localhost:http'])(
    'rejects %s',
    (address) => {
      expect(() => parseAddress(address)).toThrow(/is not host:port/);
    },
  );
});
