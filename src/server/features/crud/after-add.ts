import type { FastifyRequest } from 'fastify';
import type { Db, Row } from '../../lib/db/database.js';

/**
 * Work an entity's add does in its transaction after the insert (an import does it for every
 * row): app.ts gives the tenants feature's provisioning to systenant's add.
 */
export interface AfterAdd {
  /** What it returns is the add's answer. */
  run: (added: { trx: Db; row: Row; request: FastifyRequest }) => Promise<Row>;
  /** The properties it puts in the answer beside the record's fields, as the add's answer schema names them. */
  answerProperties?: Record<string, Record<string, unknown>>;
}
