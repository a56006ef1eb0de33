import pino from 'pino';

/**
 * Where the server's JSON log lines go: stdout, or a file. Lines are gathered in memory and
 * written LOG_BUFFER_BYTES at a time, at the latest LOG_FLUSH_MS after they were logged (and on
 * exit: pino flushes the buffer synchronously then). One unbuffered line per request cost a
 * write on the thread pool and its hand-back to the event loop for every request, about a
 * tenth of a list request's CPU time on a busy machine; the request log table is written in
 * batches every second too (features/monitor/services/request-log.ts), so a line in the outside log
 * waits no longer than its row.
 */
const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 1000;

export type LogStream = pino.DestinationStream & {
  /** Writes what is buffered; calls back once it is written. */
  flush(callback?: (error?: Error) => void): void;
};

/** dest: a file descriptor (1, stdout, by default) or a file path. */
export function logStream(dest: number | string = 1): LogStream {
  return pino.destination({ dest, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS });
}

/**
 * fsync's answer when the destination cannot be synced (a pipe, a terminal, /dev/null): the lines
 * were written all the same, and only the sync was refused.
 */
const UNSYNCABLE = new Set(['EINVAL', 'ENOTSUP', 'EROFS']);

/**
 * Resolves once every line logged so far is written (before text printed beside the log).
 * The stream syncs the file after writing; stdout is often a pipe, which cannot be synced.
 */
export function flushLog(stream: LogStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.flush((error) => {
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (error && !(code && UNSYNCABLE.has(code))) reject(error);
      else resolve();
    });
  });
}
