import { catalogStyles } from '../../../bench/campaign-scale';
import { DEFAULT_STYLES } from '../../../src/simulator';

describe('the campaign bench asks for styles of the simulator catalog', () => {
  it('every style of every --styles count is an id the simulator serves', () => {
    const served = new Set(DEFAULT_STYLES.map((style) => style.id));
    for (let count = 1; count <= DEFAULT_STYLES.length; count++) {
      const styles = catalogStyles(count);
      expect(styles).toHaveLength(count);
      expect(styles.filter((id) => !served.has(id))).toEqual([]);
    }
  });

  it('refuses more styles than the catalog holds, naming the flag', () => {
    expect(() => catalogStyles(DEFAULT_STYLES.length + 1)).toThrow(/--styles/);
    expect(() => catalogStyles(0)).toThrow(/--styles/);
  });
});
