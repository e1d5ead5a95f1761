import { EventEmitter, once } from 'node:events';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

type LogLine = Record<string, unknown>;

/** A real pino logger whose JSON lines the test can read, or wait for. */
export function capturingLogger(): { logger: Logger; lines: LogLine[]; nextLine(msg: string): Promise<LogLine> } {
  const lines: LogLine[] = [];
  const written = new EventEmitter();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = JSON.parse(chunk.toString('utf8')) as LogLine;
      lines.push(line);
      written.emit(String(line.msg), line);
      done();
    },
  });
  /** The next line logged with this message (not one already logged). */
  const nextLine = async (msg: string) => ((await once(written, msg)) as [LogLine])[0];
  return { logger: pino({ level: 'info' }, stream), lines, nextLine };
}
