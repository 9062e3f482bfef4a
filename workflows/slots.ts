/**
 * At most `size` bodies running at once, the rest waiting in the order they asked. Workflow code:
 * no timers or clock, only promises, so a replay admits them in the same order.
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(body: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((admit) => this.waiting.push(admit));
    try {
      return await body();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
