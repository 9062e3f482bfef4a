import { listLine } from '../../../src/cli/commands/list';
import { printable } from '../../../src/cli/printable';

describe('avatar-pipeline list output', () => {
  const run = {
    runId: 'r1',
    kind: 'pipeline' as const,
    status: 'COMPLETED' as const,
    taskQueue: 'q',
    startTime: new Date('2026-11-22T10:00:00Z'),
  };

  it('escapes control characters in ids stored by callers, so they cannot drive the terminal', () => {
    const line = listLine({
      ...run,
      workflowId: 'avatar-pipeline-a\u001b]0;pwned\u0007',
      subjectId: '\u001b[2J\u001b[31mred\r\nfake line\u202e',
      modelId: 7,
    });
    expect(line).toBe(
      '2026-11-22T10:00:00.000Z  COMPLETED   avatar-pipeline-a\\u{1b}]0;pwned\\u{7}  subject \\u{1b}[2J\\u{1b}[31mred\\u{d}\\u{a}fake line\\u{202e}  model 7',
    );
    expect([...line].every((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) < 0x7f)).toBe(true);
  });

  it('leaves ordinary ids as they are', () => {
    expect(printable('person-01@example.com')).toBe('person-01@example.com');
    expect(listLine({ ...run, workflowId: 'avatar-pipeline-x', subjectId: 'ana' })).toBe(
      '2026-11-22T10:00:00.000Z  COMPLETED   avatar-pipeline-x  subject ana',
    );
  });
});
