import { formatJsonLogLine } from '../../../src/worker/json-log';

describe('JSON log lines', () => {
  const entry = (meta: Record<string, unknown>) => ({
    level: 'WARN' as const,
    message: 'provider call failed',
    timestampNanos: 1_700_000_000_123_000_000n,
    meta,
  });

  it('puts time, level and message first, then the metadata', () => {
    const line = JSON.parse(formatJsonLogLine(entry({ workflowId: 'wf-1', attempt: 2 }))) as Record<
      string,
      unknown
    >;
    expect(line).toEqual({
      time: '2023-11-14T22:13:20.123Z',
      level: 'warn',
      message: 'provider call failed',
      workflowId: 'wf-1',
      attempt: 2,
    });
  });

  it('never writes values under secret-looking keys, at any depth', () => {
    const text = formatJsonLogLine(
      entry({
        headers: { Authorization: 'Bearer abc', accept: 'json' },
        apiKey: 'k-1',
        PROVIDER_API_KEY: 'k-2',
        taskToken: 't',
        nested: [{ password: 'p' }],
      }),
    );
    for (const secret of ['Bearer abc', 'k-1', 'k-2', '"t"', '"p"']) expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toMatchObject({ headers: { Authorization: '[redacted]', accept: 'json' } });
  });

  it('writes bigints and errors', () => {
    const err = new Error('boom');
    const line = JSON.parse(formatJsonLogLine(entry({ big: 12n, error: err }))) as {
      big: string;
      error: { message: string };
    };
    expect(line.big).toBe('12');
    expect(line.error.message).toBe('boom');
  });
});
