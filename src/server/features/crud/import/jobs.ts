import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { ImportJob, ImportMode, ImportResult } from '../../../../engine/api-types.js';
import type { TableSpec } from '../../../../engine/index.js';
import { BUDGETS } from '../../../lib/budgets.js';
import type { Db } from '../../../lib/db/database.js';
import { CREATED_AT_COLUMN, ID_COLUMN, TENANT_COLUMN } from '../../../lib/db/table-parts.js';
import { AppError, ERRORS } from '../../../lib/errors.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import type { CrudRequest } from '../services/crud.js';
import { readDetailSheets } from './details.js';
import { IMPORT_CHUNK_ROWS, importRecords } from './import.js';
import { openUploadedSheet, surveyUploadedSheet } from './read.js';
import { hashFileSecrets } from './secrets.js';
import { MAX_IMPORT_ROWS } from './upload.js';

/**
 * Imports run in the background: the process that received the file runs the import (the same
 * importRecords, its transaction and its mode) and keeps its progress in memory, and the job's row
 * in sys_import_job carries the progress for the other processes, then the result. A job is its
 * author's: another user, or another tenant, is answered 404.
 */

export const importJobTableSpecs = (): TableSpec[] => [
  {
    name: 'sys_import_job',
    columns: [
      ID_COLUMN,
      TENANT_COLUMN,
      { name: 'user_id', type: 'bigint', isNullable: false },
      { name: 'entity', type: 'text', isNullable: false },
      { name: 'file_name', type: 'text', isNullable: false },
      { name: 'status', type: 'text', isNullable: false },
      { name: 'mode', type: 'text', isNullable: false },
      { name: 'update_by_key', type: 'boolean', isNullable: false, defaultSql: 'false' },
      { name: 'total', type: 'integer', isNullable: false, defaultSql: '0' },
      { name: 'done', type: 'integer', isNullable: false, defaultSql: '0' },
      { name: 'phase', type: 'text', isNullable: true },
      { name: 'result', type: 'jsonb', isNullable: true },
      { name: 'error', type: 'jsonb', isNullable: true },
      CREATED_AT_COLUMN,
      { name: 'updated_at', type: 'timestamptz', isNullable: false, defaultSql: 'now()' },
    ],
    primaryKey: ['id'],
    indexes: [
      { name: 'sys_import_job_user_idx', columns: ['tenant_code', 'user_id', 'created_at'], isUnique: false },
    ],
    foreignKeys: [],
  },
];

/** Jobs listed for a user: the latest ones. */
const LISTED_JOBS = 20;
/** How often a running job's progress is written to its row (the other processes read it there). */
const PERSIST_EVERY_MS = 1_000;
/** How long this process keeps a finished job in memory (its row has it too). */
const KEEP_FINISHED_MS = 10 * 60_000;

interface JobRow {
  id: string | number;
  tenant_code: string;
  user_id: string | number;
  entity: string;
  file_name: string;
  status: ImportJob['status'];
  mode: ImportMode;
  update_by_key: boolean;
  total: number;
  done: number;
  phase: ImportJob['phase'] | null;
  result: ImportResult | null;
  error: ImportJob['error'] | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A job of this process, with whose it is. */
interface LocalJob {
  job: ImportJob;
  tenantCode: string;
  userId: number;
}

/**
 * The jobs this process runs (and ran lately), by database (an app's own: job ids are its
 * table's): their progress is here first, then in their rows.
 */
const localByDatabase = new WeakMap<Db, Map<number, LocalJob>>();
function localJobs(db: Db): Map<number, LocalJob> {
  let jobs = localByDatabase.get(db);
  if (!jobs) localByDatabase.set(db, (jobs = new Map()));
  return jobs;
}

const iso = (value: Date | string): string => (value instanceof Date ? value : new Date(value)).toISOString();

function jobOf(row: JobRow, interrupted: string): ImportJob {
  const stale =
    row.status === 'running' && Date.now() - new Date(row.updated_at).getTime() > BUDGETS.import.jobStaleMs;
  return {
    id: Number(row.id),
    entity: row.entity,
    fileName: row.file_name,
    status: stale ? 'failed' : row.status,
    mode: row.mode,
    updateByKey: row.update_by_key,
    total: row.total,
    done: row.done,
    ...(row.phase ? { phase: row.phase } : {}),
    ...(row.result ? { result: row.result } : {}),
    ...(row.error ? { error: row.error } : stale ? { error: { message: interrupted, errors: [] } } : {}),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

const mine = (actor: Actor) => sql`tenant_code = ${actor.tenantCode} and user_id = ${actor.userId ?? 0}`;

/** The caller's job by id: 404 when it is not theirs (another user's, another tenant's) or not there. */
export async function readImportJob(
  request: Pick<CrudRequest, 'db' | 'actor' | 'l10n'>,
  id: number,
): Promise<ImportJob> {
  const { actor, l10n } = request;
  const held = localJobs(request.db).get(id);
  if (held) if (held.tenantCode === actor.tenantCode && held.userId === actor.userId) return { ...held.job };
  const found = await sql<JobRow>`select * from sys_import_job where id = ${id} and ${mine(actor)}`.execute(
    request.db,
  );
  const row = found.rows[0];
  if (!row) throw new AppError('notFound', { entity: l10n.t('import.job'), key: String(id) });
  return jobOf(row, l10n.t('import.interrupted'));
}

/** The caller's latest jobs, newest first. */
export async function listImportJobs(
  request: Pick<CrudRequest, 'db' | 'actor' | 'l10n'>,
): Promise<ImportJob[]> {
  const { actor, l10n } = request;
  const found = await sql<JobRow>`select * from sys_import_job where ${mine(actor)}
    order by created_at desc, id desc limit ${LISTED_JOBS}`.execute(request.db);
  return found.rows.map((row) => {
    const held = localJobs(request.db).get(Number(row.id));
    return held ? { ...held.job } : jobOf(row, l10n.t('import.interrupted'));
  });
}

export interface ImportJobInput {
  crud: CrudRequest;
  fileName: string;
  bytes: Buffer;
  mode: ImportMode;
  updateByKey: boolean;
  /** Where a failure of the server is logged (the request's logger). */
  log: FastifyBaseLogger;
}

/**
 * Starts an import in the background and answers its job at once. At most
 * BUDGETS.import.jobsPerUser of a user's jobs run at a time (429 past it).
 */
export async function startImportJob(input: ImportJobInput): Promise<ImportJob> {
  const { crud, fileName, mode, updateByKey } = input;
  const { actor, db, l10n } = crud;
  const running = await sql<{ n: number }>`select count(*)::int as n from sys_import_job
    where ${mine(actor)} and status = 'running' and updated_at > now() - make_interval(secs => ${BUDGETS.import.jobStaleMs / 1000})`.execute(
    db,
  );
  if (Number(running.rows[0]?.n ?? 0) >= BUDGETS.import.jobsPerUser) throw new AppError('rateLimited');
  const inserted = await sql<JobRow>`insert into sys_import_job
    (tenant_code, user_id, entity, file_name, status, mode, update_by_key)
    values (${actor.tenantCode}, ${actor.userId ?? 0}, ${crud.entity.name}, ${fileName.slice(0, 255)}, 'running', ${mode}, ${updateByKey})
    returning *`.execute(db);
  const row = inserted.rows[0];
  if (!row) throw new Error('insert into sys_import_job returned nothing');
  const job = jobOf(row, l10n.t('import.interrupted'));
  const held: LocalJob = { job, tenantCode: actor.tenantCode, userId: actor.userId ?? 0 };
  localJobs(db).set(job.id, held);
  void runJob(input, held);
  return { ...job };
}

/** Writes a running job's progress to its row (never waited for: the import goes on). */
function persistProgress(db: Db, job: ImportJob): void {
  void sql`update sys_import_job set total = ${job.total}, done = ${job.done}, phase = ${job.phase ?? null}, updated_at = now()
    where id = ${job.id} and status = 'running'`
    .execute(db)
    .catch(() => undefined);
}

/** Runs the job's import and records its end: the result, or the failure's message and problems. */
async function runJob(input: ImportJobInput, held: LocalJob): Promise<void> {
  const { crud, bytes } = input;
  const { job } = held;
  let persisted = 0;
  try {
    // The rows are counted first (read off the request thread), so that progress has its total.
    job.total = (await surveyUploadedSheet({ bytes, maxRows: MAX_IMPORT_ROWS })).rows;
    const progress = (phase: NonNullable<ImportJob['phase']>) => (rows: number) => {
      job.phase = phase;
      job.done = rows;
      job.updatedAt = new Date().toISOString();
      if (Date.now() - persisted < PERSIST_EVERY_MS) return;
      persisted = Date.now();
      persistProgress(crud.db, job);
    };
    progress('reading')(0);
    // Passwords are hashed before the import's transaction opens (secrets.ts).
    const { hashed } = await hashFileSecrets({ crud, bytes, onProgress: progress('hashing') });
    const details = await readDetailSheets({ crud, bytes, maxRows: MAX_IMPORT_ROWS });
    const sheet = await openUploadedSheet({ bytes, maxRows: MAX_IMPORT_ROWS, chunkRows: IMPORT_CHUNK_ROWS });
    const result = await importRecords({
      crud,
      sheet,
      dryRun: false,
      mode: input.mode,
      updateByKey: input.updateByKey,
      ...(details ? { details } : {}),
      ...(hashed ? { hashed } : {}),
      onProgress: progress('writing'),
    });
    Object.assign(job, { status: 'done', done: result.total, total: result.total, result });
  } catch (error) {
    const failure = failureOf(crud, error);
    Object.assign(job, { status: 'failed', error: failure });
    if (!(error instanceof AppError)) input.log.error(error, `import job ${job.id} failed`);
  }
  job.updatedAt = new Date().toISOString();
  await sql`update sys_import_job set status = ${job.status}, total = ${job.total}, done = ${job.done},
    result = ${job.result ? JSON.stringify(job.result) : null}::jsonb,
    error = ${job.error ? JSON.stringify(job.error) : null}::jsonb, updated_at = now()
    where id = ${job.id}`
    .execute(crud.db)
    .catch((error: unknown) => input.log.error(error, `import job ${job.id}: its end was not recorded`));
  setTimeout(() => localJobs(crud.db).delete(job.id), KEEP_FINISHED_MS).unref();
}

/** A failure as the job shows it: the catalogue's message and the problems it names. */
function failureOf(crud: CrudRequest, error: unknown): NonNullable<ImportJob['error']> {
  if (error instanceof AppError)
    return {
      message: crud.l10n.t(`errors.${ERRORS[error.code].key}`, error.params),
      errors: (error.errors ?? []).slice(0, 1000),
    };
  return { message: crud.l10n.t('errors.internal'), errors: [] };
}
