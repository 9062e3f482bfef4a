import { CallbackTargetError, checkCallbackTarget } from '../../../src/callbacks/callback-target';

const resolvesTo =
  (...addresses: string[]) =>
  async () =>
    addresses.map((address) => ({ address }));
const unresolvable = async () => {
  throw new Error('ENOTFOUND');
};

async function refusal(url: string, privateHosts: string[] = [], lookup = resolvesTo('93.184.216.34')) {
  try {
    await checkCallbackTarget(url, { privateHosts }, lookup);
  } catch (err) {
    if (err instanceof CallbackTargetError) return err;
    throw err;
  }
  throw new Error(`${url} was accepted`);
}

describe('callback targets', () => {
  it('accepts public http(s) hosts', async () => {
    await expect(
      checkCallbackTarget(
        'https://hooks.example.com/a?b=1',
        { privateHosts: [] },
        resolvesTo('93.184.216.34'),
      ),
    ).resolves.toBeInstanceOf(URL);
    await expect(
      checkCallbackTarget('http://8.8.8.8/x', { privateHosts: [] }, unresolvable),
    ).resolves.toBeInstanceOf(URL);
  });

  it.each([
    'http://127.0.0.1:9000/hook',
    'http://10.0.0.5/hook',
    'http://[::1]/hook',
    'http://169.254.169.254/latest',
  ])('refuses the private address in %s', async (url) => {
    expect((await refusal(url)).reason).toMatch(/private address.*CALLBACK_PRIVATE_HOSTS/);
  });

  it('refuses a name that resolves to a private address', async () => {
    const err = await refusal(
      'https://internal.example.com/hook',
      [],
      resolvesTo('93.184.216.34', '192.168.1.20'),
    );
    expect(err.reason).toContain('host "internal.example.com" resolves to a private address');
    expect(err.reason).not.toContain('192.168.1.20');
    expect(err.temporary).toBe(false);
  });

  it('allows private hosts that are listed, by name or address', async () => {
    await expect(
      checkCallbackTarget('http://127.0.0.1:9000/hook', { privateHosts: ['127.0.0.1'] }),
    ).resolves.toBeInstanceOf(URL);
    await expect(
      checkCallbackTarget(
        'http://Receiver.Internal/hook',
        { privateHosts: ['receiver.internal'] },
        resolvesTo('10.0.0.9'),
      ),
    ).resolves.toBeInstanceOf(URL);
  });

  it('treats an unresolvable name as temporary', async () => {
    const err = await refusal('https://nowhere.example/hook', [], unresolvable);
    expect(err.temporary).toBe(true);
  });

  it('refuses other schemes, credentials and garbage', async () => {
    expect((await refusal('ftp://files.example.com/x')).reason).toMatch(/http\(s\)/);
    expect((await refusal('https://user:pw@hooks.example.com/x')).reason).toMatch(/credentials/);
    expect((await refusal('not a url')).reason).toMatch(/not a valid URL/);
  });
});
