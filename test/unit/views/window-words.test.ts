import { windowWords, WINDOW_REASON_WORDS } from '@avatar-pipeline/client/views/window-words';

/** The campaign page says why its window has its size in words, not the controller's names. */
describe('a campaign window in words', () => {
  test('every reason the controller gives has words, and an unknown one is kept as it came', () => {
    for (const words of Object.values(WINDOW_REASON_WORDS)) expect(words).not.toMatch(/^[a-z]+(-[a-z]+)+$/);
    expect(windowWords({ size: 10, mode: 'auto', reason: 'not-full' })).toBe(
      '10 at once, sized automatically: not full: fewer subjects are ready than it holds',
    );
    expect(windowWords({ size: 3, mode: 'fixed', reason: 'a-new-reason' })).toBe(
      '3 at once, fixed: a-new-reason',
    );
  });
});
