import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { workflowOf } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { deployIn } from './deploy.js';

/**
 * The product's processes (README "Approval of records"): the process an entity schema names in
 * x-entity.workflow ships beside the schemas, as `<schemas>/processes/<process key>.bpmn`
 * (schemas/processes/purchaseApproval.bpmn), and the seed deploys it in each tenant that has no
 * definition of that key yet: at a first start, and at every later start for a tenant added
 * since or a process added to the product since. A key a tenant has, in any version (an
 * administrator's own deployment of it, newer or not), is left alone: nothing is overwritten, and
 * a restart deploys nothing again. A process named without a file is the administrator's to
 * deploy (提交审批 answers 409 approvalNoProcess until then).
 */

export const PROCESSES_DIR = 'processes';

/** Whether the tenant has a definition of the process key (any version): what 提交审批 starts. */
export async function isProcessDeployed({
  db,
  tenantCode,
  key,
}: {
  db: Db;
  tenantCode: string;
  key: string;
}): Promise<boolean> {
  const found = await sql`select 1 from wf_definition
    where tenant_code = ${tenantCode} and process_key = ${key} limit 1`.execute(db);
  return found.rows.length > 0;
}

/** The shipped file of a process key, if the product has one. */
export function shippedProcessFile(schemasDir: string, key: string): string | undefined {
  // A key is an XML id (letters, digits, . _ -): never a path.
  if (!/^[A-Za-z_][\w.-]*$/.test(key)) return undefined;
  const path = join(schemasDir, PROCESSES_DIR, `${key}.bpmn`);
  return existsSync(path) ? path : undefined;
}

/**
 * Deploys, in the caller's transaction (the seed's), each shipped process the schemas name that
 * the tenant lacks, as the user `system`; answers the keys deployed. A shipped file that does not
 * deploy, or whose executable process has another key than its name, stops the start naming it.
 */
export async function deployShippedProcesses({
  ctx,
  trx,
  tenantCode,
  l10n,
  only,
}: {
  ctx: AppContext;
  trx: Db;
  tenantCode: string;
  l10n: Localizer;
  /** This key only (a submit's process), when the schemas name it. */
  only?: string;
}): Promise<string[]> {
  const keys = new Set<string>();
  for (const entity of ctx.registry.all) {
    const workflow = workflowOf(entity);
    if (workflow && !ctx.registry.isRuntime(entity.name) && (only === undefined || workflow.process === only))
      keys.add(workflow.process);
  }
  const deployed: string[] = [];
  for (const key of [...keys].sort()) {
    const path = shippedProcessFile(ctx.config.schemasDir, key);
    if (!path) continue;
    // Two first submits of a new tenant at once deploy it once.
    await sql`select pg_advisory_xact_lock(hashtext(${`wf-shipped:${tenantCode}:${key}`}))`.execute(trx);
    if (await isProcessDeployed({ db: trx, tenantCode, key })) continue;
    const xml = readFileSync(path, 'utf8');
    let answerKey: string;
    try {
      const answer = await deployIn({
        ctx,
        trx,
        actor: { userId: null, username: 'system', tenantCode },
        l10n,
        input: { xml },
      });
      answerKey = answer.key;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const problems = (error.errors ?? []).map((field) => `${field.field}: ${field.message}`).join('; ');
      throw new Error(`${path} does not deploy: ${error.message}${problems ? ` (${problems})` : ''}`, {
        cause: error,
      });
    }
    if (answerKey !== key)
      throw new Error(`${path}: its executable process is "${answerKey}", not "${key}" as its name says`);
    deployed.push(key);
  }
  return deployed;
}
