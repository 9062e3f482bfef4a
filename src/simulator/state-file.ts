import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OrderStore } from './order-store';
import { persistedStateSchema, type PersistedState, type TrainingImageRecord } from './state-schema';

/** Saves that only record reads (status-call counters) are batched; writes are saved before answering. */
const BATCHED_SAVE_DELAY_MS = 200;

export interface LoadedState {
  state: PersistedState;
  images: TrainingImageRecord[];
}

/**
 * The simulator's state on disk: orders and counters as JSON (rewritten atomically), selfie
 * bytes as one file each beside it (written once), so a restarted simulator answers as before.
 */
export class StateFile {
  private readonly imagesDir: string;
  private readonly writtenImages = new Set<number>();
  private pendingSave: NodeJS.Timeout | null = null;

  constructor(readonly path: string) {
    this.imagesDir = `${path}.images`;
  }

  load(): LoadedState | null {
    if (!existsSync(this.path)) return null;
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (err) {
      throw new Error(
        `stateFile ${this.path}: not valid JSON (${err instanceof Error ? err.message : String(err)})`,
        {
          cause: err,
        },
      );
    }
    const parsed = persistedStateSchema.safeParse(raw);
    if (!parsed.success) {
      throw new Error(
        `stateFile ${this.path}: not a simulator state file (${parsed.error.issues[0]?.message ?? ''})`,
      );
    }
    const images = parsed.data.trainingImages.map((meta) => {
      const file = this.imageFile(meta.id, meta.format);
      // A missing selfie file only costs the avatars their likeness: they fall back to a pattern.
      const bytes = existsSync(file) ? readFileSync(file) : Buffer.alloc(0);
      this.writtenImages.add(meta.id);
      return { ...meta, bytes };
    });
    return { state: parsed.data, images };
  }

  saveNow(store: OrderStore): void {
    this.cancelPendingSave();
    mkdirSync(dirname(this.path), { recursive: true });
    for (const image of store.allTrainingImages()) {
      if (this.writtenImages.has(image.id)) continue;
      mkdirSync(this.imagesDir, { recursive: true });
      writeFileSync(this.imageFile(image.id, image.format), image.bytes);
      this.writtenImages.add(image.id);
    }
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(store.snapshot()));
    renameSync(temporary, this.path);
  }

  saveSoon(store: OrderStore): void {
    if (this.pendingSave !== null) return;
    this.pendingSave = setTimeout(() => {
      this.pendingSave = null;
      this.saveNow(store);
    }, BATCHED_SAVE_DELAY_MS);
    this.pendingSave.unref();
  }

  /** Writes anything batched; called when the simulator stops. */
  flush(store: OrderStore): void {
    if (this.pendingSave !== null) this.saveNow(store);
  }

  /** Forgets every saved selfie; the caller saves the (now empty) state next. */
  removeImages(): void {
    this.cancelPendingSave();
    rmSync(this.imagesDir, { recursive: true, force: true });
    this.writtenImages.clear();
  }

  private cancelPendingSave(): void {
    if (this.pendingSave !== null) clearTimeout(this.pendingSave);
    this.pendingSave = null;
  }

  private imageFile(id: number, format: string): string {
    return join(this.imagesDir, `${id}.${format}`);
  }
}
