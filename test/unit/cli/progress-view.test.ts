import { Writable } from 'node:stream';
import type { PipelineProgress } from '@avatar-pipeline/client/contracts/pipeline-state';
import { LineProgressView, progressViewFor, TerminalProgressView } from '../../../src/cli/progress-view';

class Capture extends Writable {
  chunks: string[] = [];
  columns: number | undefined;
  isTTY: boolean | undefined;
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk.toString());
    done();
  }
  get text(): string {
    return this.chunks.join('');
  }
}

const snapshot = (stage: PipelineProgress['stage'], styles = 2): PipelineProgress => ({
  workflowId: 'wf-1',
  stage,
  uploads: { done: 1, total: 2 },
  training: { polls: 0 },
  styles: Array.from({ length: styles }, (_, i) => ({ styleId: i + 1, stage: 'pending' as const })),
});

describe('TerminalProgressView', () => {
  it('draws the frame, then redraws it in place by moving up as many lines as it drew', () => {
    const out = new Capture();
    out.columns = 120;
    const view = new TerminalProgressView(out as unknown as NodeJS.WriteStream, {
      workflowId: 'wf-1',
      now: () => 0,
    });
    view.update(snapshot('uploading-selfies'));
    const first = out.text;
    expect(first.startsWith('\u001b[?25l')).toBe(true); // cursor hidden while drawing
    const firstLines = first.split('\n').length - 1;
    expect(firstLines).toBe(6); // header, selfies, training, 2 styles, avatars
    out.chunks = [];
    view.update(snapshot('training'));
    expect(out.text.startsWith(`\u001b[${firstLines}A\r`)).toBe(true);
    expect(out.text).toContain('training');
    view.finish();
    expect(out.text.endsWith('\u001b[?25h')).toBe(true); // cursor back
    out.chunks = [];
    view.update(snapshot('done'));
    expect(out.text).toBe(''); // nothing after finish
  });

  it('clears leftover lines when the frame gets shorter and cuts lines to the terminal width', () => {
    const out = new Capture();
    out.columns = 30;
    const view = new TerminalProgressView(out as unknown as NodeJS.WriteStream, {
      workflowId: 'x'.repeat(60),
    });
    view.update(snapshot('training', 3));
    view.update(undefined); // keeps the last snapshot rather than blanking the view
    out.chunks = [];
    const shorter = new TerminalProgressView(out as unknown as NodeJS.WriteStream, { workflowId: 'wf' });
    shorter.update(snapshot('training', 3));
    shorter.update(snapshot('training', 1));
    expect(out.text).toContain('\u001b[0J');
    for (const line of out.text.split('\n')) {
      // eslint-disable-next-line no-control-regex
      expect(line.replace(/\u001b\[[0-9;?]*[A-Za-z]|\r/g, '').length).toBeLessThanOrEqual(29);
    }
    view.finish();
    shorter.finish();
  });
});

describe('LineProgressView', () => {
  it('writes one plain line per change and nothing for repeats or missing progress', () => {
    const out = new Capture();
    const view = new LineProgressView(out);
    view.update(undefined);
    view.update(snapshot('training'));
    view.update(snapshot('training'));
    view.update(snapshot('generating'));
    view.finish();
    const lines = out.text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^stage=training /);
    expect(lines[1]).toMatch(/^stage=generating /);
    expect(out.text).not.toContain('\u001b');
  });
});

describe('progressViewFor', () => {
  it('uses the live view on a terminal only', () => {
    const tty = new Capture();
    tty.isTTY = true;
    const pipe = new Capture();
    const live = progressViewFor(tty as unknown as NodeJS.WriteStream, { workflowId: 'wf' }, {});
    expect(live).toBeInstanceOf(TerminalProgressView);
    live.finish();
    expect(progressViewFor(pipe as unknown as NodeJS.WriteStream, { workflowId: 'wf' }, {})).toBeInstanceOf(
      LineProgressView,
    );
    const dumb = progressViewFor(
      tty as unknown as NodeJS.WriteStream,
      { workflowId: 'wf' },
      { TERM: 'dumb' },
    );
    expect(dumb).toBeInstanceOf(LineProgressView);
  });
});
