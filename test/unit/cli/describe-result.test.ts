import { describeResult } from '../../../src/cli/run-flags';

describe('describeResult', () => {
  it('marks avatars that failed their checks, with the reasons, and says how often a style was ordered', () => {
    const text = describeResult({
      workflowId: 'default.avatar-pipeline-1',
      modelId: 1001,
      status: 'PARTIAL',
      generations: [
        {
          styleId: 5,
          orderId: 1004,
          status: 'DONE',
          attempts: 2,
          replacedOrders: [{ orderId: 1002, failedAvatars: 1 }],
          avatars: [
            { avatarId: 9, imageUrl: 'http://p/images/1004/9.png', check: { passed: true, reasons: [] } },
          ],
        },
        {
          styleId: 7,
          orderId: 1005,
          status: 'ERROR',
          attempts: 2,
          error: 'every avatar failed its checks after 2 orders: is flagged as unsafe',
          avatars: [
            {
              avatarId: 11,
              imageUrl: 'http://p/images/1005/11.png',
              check: { passed: false, reasons: ['is flagged as unsafe (Porn 0.97; flagged from 0.6)'] },
            },
          ],
        },
        {
          styleId: 3,
          orderId: 1003,
          status: 'DONE',
          avatars: [{ avatarId: 7, imageUrl: 'http://p/images/1003/7.png' }],
        },
      ],
    });
    expect(text.split('\n')).toEqual([
      'default.avatar-pipeline-1: model 1001, PARTIAL',
      '  style 5: DONE, 1 avatars, 2 orders',
      '    http://p/images/1004/9.png',
      '  style 7: ERROR, 1 avatars, 2 orders (every avatar failed its checks after 2 orders: is flagged as unsafe)',
      '    http://p/images/1005/11.png  FAILED CHECKS: is flagged as unsafe (Porn 0.97; flagged from 0.6)',
      '  style 3: DONE, 1 avatars',
      '    http://p/images/1003/7.png',
    ]);
  });
});
