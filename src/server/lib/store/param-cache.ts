/**
 * The operational params (rate limits, monitoring settings) of the default tenant, kept in
 * process memory so that a sign-in or an SMS request needs no extra query for its limits.
 * Exact, as SessionCache is: a database trigger announces every write to the params table
 * (whoever makes it), every process drops its copy when it hears one
 * (features/sessions/services/watch.ts), and a request that changed a param is answered only once every
 * process has heard it. While a process cannot hear other processes, it reads the table.
 */
export class ParamCache {
  private values: ReadonlyMap<string, string> | undefined;
  /** Bumped by every change: a read that started before a change must not cache what it read. */
  generation = 0;
  private hearing = false;

  /** The cached values, or undefined when they must be read. */
  get(): ReadonlyMap<string, string> | undefined {
    return this.hearing ? this.values : undefined;
  }

  /** Keeps values read when the generation was `generation` (and nothing changed since). */
  set(values: ReadonlyMap<string, string>, generation: number): void {
    if (!this.hearing || generation !== this.generation) return;
    this.values = values;
  }

  /** A param changed somewhere: read them again. */
  clear(): void {
    this.generation += 1;
    this.values = undefined;
  }

  /** Whether changes are heard now; the cache is used only while they are. */
  setHearing(hearing: boolean): void {
    this.clear();
    this.hearing = hearing;
  }
}
