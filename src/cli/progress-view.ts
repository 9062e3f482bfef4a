import type { PipelineProgress } from '@avatar-pipeline/client/contracts/pipeline-state';
import { renderFrame } from './live-view-frame';
import { describeProgress } from './progress-lines';
import { printable, writeLines } from './printable';

/** Where a watched pipeline's progress goes. */
export interface ProgressView {
  /** Called on every poll, with undefined while no worker answers yet. */
  update(progress: PipelineProgress | undefined): void;
  /** The last frame stays on screen; nothing is drawn after this. */
  finish(): void;
  /** How often to poll for this view. */
  readonly intervalMs: number;
}

export interface ViewOptions {
  workflowId: string;
  styleNames?: ReadonlyMap<number, string>;
  now?: () => number;
}

const ESC = '\u001b[';

/**
 * A live view for a terminal: the frame is redrawn in place (cursor up, clear line) with plain
 * ANSI sequences. Lines are cut to the terminal's width, so nothing wraps and the redraw stays
 * aligned.
 */
export class TerminalProgressView implements ProgressView {
  readonly intervalMs = 500;
  private drawnLines = 0;
  private last: PipelineProgress | undefined;
  private finished = false;
  private readonly started: number;
  private readonly now: () => number;
  private readonly restoreCursor = (): void => void this.stream.write(`${ESC}?25h`);

  constructor(
    private readonly stream: NodeJS.WritableStream & { columns?: number },
    private readonly options: ViewOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
    this.stream.write(`${ESC}?25l`);
    // The cursor comes back even when the process ends without finish() (Ctrl-C, a crash).
    process.once('exit', this.restoreCursor);
  }

  update(progress: PipelineProgress | undefined): void {
    if (this.finished) return;
    this.last = progress ?? this.last;
    this.draw();
  }

  finish(): void {
    if (this.finished) return;
    this.draw();
    this.finished = true;
    process.removeListener('exit', this.restoreCursor);
    this.restoreCursor();
  }

  private draw(): void {
    // A pseudo-terminal without a size reports 0 columns.
    const columns = Math.max(20, (this.stream.columns || 80) - 1);
    const lines = renderFrame(this.last, {
      workflowId: this.options.workflowId,
      elapsedMs: this.now() - this.started,
      ...(this.options.styleNames ? { styleNames: this.options.styleNames } : {}),
    })
      .map(printable)
      .map((line) => (line.length > columns ? `${line.slice(0, columns - 1)}…` : line));
    let out = this.drawnLines > 0 ? `${ESC}${this.drawnLines}A\r` : '';
    for (const line of lines) out += `${ESC}2K${line}\n`;
    if (lines.length < this.drawnLines) out += `${ESC}0J`;
    this.stream.write(out);
    this.drawnLines = lines.length;
  }
}

/** Plain lines, one per change, for logs, pipes and CI. */
export class LineProgressView implements ProgressView {
  readonly intervalMs = 1000;
  private lastLine = '';

  constructor(private readonly stream: NodeJS.WritableStream) {}

  update(progress: PipelineProgress | undefined): void {
    if (progress === undefined) return;
    const line = describeProgress(progress);
    if (line === this.lastLine) return;
    this.lastLine = line;
    writeLines(this.stream, line);
  }

  finish(): void {}
}

/** The live view on an interactive terminal (unless TERM=dumb), plain lines anywhere else. */
export function progressViewFor(
  stream: NodeJS.WriteStream,
  options: ViewOptions,
  env: NodeJS.ProcessEnv = process.env,
): ProgressView {
  return stream.isTTY && env.TERM !== 'dumb'
    ? new TerminalProgressView(stream, options)
    : new LineProgressView(stream);
}
