import { offeredStylesCache } from '../../../src/operations/offered-styles';
import type { Style } from '@avatar-pipeline/client/provider/schemas';

describe('offeredStylesCache', () => {
  it('asks the provider once for concurrent and repeated checks, again after five minutes', async () => {
    let now = 0;
    let asked = 0;
    const provider = {
      listStyles: () => {
        asked++;
        return Promise.resolve([{ id: 3 }, { id: 5 }] as Style[]);
      },
    };
    const offered = offeredStylesCache(provider, () => now);
    expect(await Promise.all([offered(), offered()])).toEqual([
      [{ id: 3 }, { id: 5 }],
      [{ id: 3 }, { id: 5 }],
    ]);
    now += 60_000;
    await offered();
    expect(asked).toBe(1);
    now += 5 * 60_000;
    await offered();
    expect(asked).toBe(2);
  });

  it('answers undefined while the provider cannot be asked, and asks again 30 s later', async () => {
    let now = 0;
    let up = false;
    let asked = 0;
    const provider = {
      listStyles: () => {
        asked++;
        return up ? Promise.resolve([{ id: 7 }] as Style[]) : Promise.reject(new Error('down'));
      },
    };
    const offered = offeredStylesCache(provider, () => now);
    expect(await offered()).toBeUndefined();
    up = true;
    now += 10_000;
    expect(await offered()).toBeUndefined();
    expect(asked).toBe(1);
    now += 30_000;
    expect(await offered()).toEqual([{ id: 7 }]);
  });
});
