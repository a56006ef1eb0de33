/**
 * The insert of one chunk while the next is prepared. Its failure is the import's failure, and
 * it comes first: a check's query that runs after a failed insert only fails because the
 * transaction is aborted.
 */
export class ChunkWriter {
  private pending: Promise<number> | undefined;
  private failure: { error: unknown } | undefined;
  private count = 0;

  start(insert: Promise<number>): void {
    this.pending = insert;
    // Seen now, thrown by settle: a rejection nobody awaits yet must not end the process.
    insert.catch((error: unknown) => {
      this.failure ??= { error };
    });
  }

  /** Awaits other work; when the insert under way has failed, that failure is thrown instead. */
  async during<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      await this.pending?.catch(() => undefined);
      if (this.failure) throw this.failure.error;
      throw error;
    }
  }

  /** Waits for the insert under way; answers the rows inserted so far. */
  async settle(): Promise<number> {
    const pending = this.pending;
    this.pending = undefined;
    if (pending) this.count += await pending;
    return this.count;
  }
}
