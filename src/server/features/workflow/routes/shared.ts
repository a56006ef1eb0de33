import type { FastifyRequest } from 'fastify';
import { PROCESS_VARIABLE_NAME } from '../../../../engine/api-types.js';
import { AppError } from '../../../lib/errors.js';
import { actorOf, requireAuth } from '../../../lib/http.js';
import { dictionary, id, integer, object, text } from '../../../lib/route-schema.js';
import { assertUrlGranted } from '../../rbac/index.js';
import type { Db } from '../../../lib/db/database.js';
import { candidateOf, type Candidate } from '../services/people.js';
import { takesPart } from '../services/queries.js';

/** Where every workflow call lives (docs/http-contract.md, paths). */
export const BASE = '/api/activiti';

export const TAGS = ['workflow'];

/** A personal-office call: every signed-in role may make it (the service checks the task or instance). */
export const SELF = { isSelfService: true };

export const PAGING = {
  currentPage: integer(1, 1_000_000),
  pageSize: integer(1, 1000),
};

/** Variables a caller sets: names as JUEL can read them. */
export const VARIABLES = dictionary(undefined, {
  maxProperties: 200,
  propertyNames: { pattern: PROCESS_VARIABLE_NAME },
  description: 'Process variables by name (JSON values)',
});

/** Form data of a formKey naming an entity: checked by that entity's validators. */
export const FORM_DATA = dictionary(undefined, {
  maxProperties: 500,
  description: 'The form of the formKey, as its entity API takes it',
});

export const COMMENT = text(2000, {
  minLength: 1,
  description: 'Required (docs/product.md §5: task comment required)',
});

/** The query string of a call on one record: ?id=… */
export const byId = (what: string) => object({ id: id(what) }, ['id']);

/** A true/false filter as the query sent it: undefined when not sent or empty. */
export const flagValue = (text: '' | 'true' | 'false' | undefined): boolean | undefined =>
  text === 'true' ? true : text === 'false' ? false : undefined;

/** The caller as a candidate (user name and groups). */
export function candidate(request: FastifyRequest): Promise<Candidate> {
  return candidateLater(request)(request.server.ctx.db);
}

/**
 * The caller as a candidate, read through the database handle given when asked: a service asks
 * inside its transaction, on its own connection, and only when it needs the caller's groups.
 */
export function candidateLater(request: FastifyRequest): (db: Db) => Promise<Candidate> {
  const auth = requireAuth(request);
  return (db) => candidateOf({ ctx: request.server.ctx, db, user: auth });
}

/**
 * Whether the caller oversees workflow (ROLE_ADMIN, or a role granted the administrators'
 * task list URL): they see every instance and task of their tenant.
 */
export async function oversees(request: FastifyRequest): Promise<boolean> {
  try {
    await assertUrlGranted({
      ctx: request.server.ctx,
      auth: requireAuth(request),
      path: `${BASE}/task/query`,
      method: 'GET',
      isSelfService: false,
    });
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === 'forbidden') return false;
    throw error;
  }
}

/**
 * An instance's details are for those who take part in it (started it, hold or held one of its
 * tasks, are a candidate) and for those who oversee workflow: 403 for anyone else.
 */
export async function assertTakesPart(request: FastifyRequest, instanceId: number): Promise<void> {
  if (await oversees(request)) return;
  const db = request.server.ctx.db;
  if (!(await takesPart({ db, instanceId, who: await candidate(request) }))) throw new AppError('forbidden');
}

export { actorOf };
