import type { Kysely } from 'kysely';

/** Tables are derived from schemas at run time, so rows are plain records. */
export type Row = Record<string, unknown>;
export type Database = Record<string, Row>;
export type Db = Kysely<Database>;
