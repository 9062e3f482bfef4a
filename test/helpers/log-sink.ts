import { Writable } from 'node:stream';

/** A stream for a pino logger that hands each chunk (one JSON line) to `write` as text. */
export function logSink(write: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      write(chunk.toString('utf8'));
      done();
    },
  });
}
