import type { WfDeployAnswer, WfModel } from '../../../../engine/api-types.js';

/** The workflow engine's model calls (/api/activiti/model) as these screens use them. */
export const MODEL_API = '/api/activiti/model';
export const DEPLOYMENT_API = '/api/activiti/deployment';

/** A model and a deployment's answer, as the server declares them (engine/api-types.ts). */
export type ModelRecord = WfModel;
export type DeployAnswer = WfDeployAnswer;

/** The fields model/add and model/update take from a record (a copy takes them too). */
export function modelInput(record: ModelRecord): Record<string, unknown> {
  return {
    name: record.name,
    key: record.key,
    category: record.category ?? '',
    description: record.description ?? '',
    orgId: record.orgId,
    referGroup: record.referGroup ?? '',
    referUsers: record.referUsers,
    usedForm: record.usedForm ?? '',
  };
}

/** The process ids a copied model may get, in order: the key with _copy, then _copy2, … */
function* copyKeys(key: string): Generator<string> {
  const base = `${key}_copy`.slice(0, 95);
  yield base;
  for (let n = 2; ; n += 1) yield `${base}${n}`;
}

/** The first copy key not in `taken`. */
export function copyKey(key: string, taken: ReadonlySet<string>): string {
  for (const candidate of copyKeys(key)) if (!taken.has(candidate)) return candidate;
  return key;
}

/** The first copy key the server does not know (every page of models, not only the one shown). */
export async function freeCopyKey(
  key: string,
  isTaken: (candidate: string) => Promise<boolean>,
): Promise<string> {
  for (const candidate of copyKeys(key)) if (!(await isTaken(candidate))) return candidate;
  return key;
}

/** The same diagram under another process id (the process element's id and its diagram plane). */
export function withProcessKey(xml: string, from: string, to: string): string {
  const quoted = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return xml
    .replace(new RegExp(`(<(?:\\w+:)?process\\b[^>]*\\sid=")${quoted}"`), `$1${to}"`)
    .replace(new RegExp(`(<(?:\\w+:)?BPMNPlane\\b[^>]*\\sbpmnElement=")${quoted}"`), `$1${to}"`);
}

/** The process id and name of a BPMN file, for a model imported from it. */
export function processOf(xml: string): { key: string; name: string } | undefined {
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  if (doc.getElementsByTagName('parsererror').length > 0) return undefined;
  const process = Array.from(doc.getElementsByTagNameNS('*', 'process')).find(
    (element) => element.getAttribute('isExecutable') !== 'false',
  );
  const key = process?.getAttribute('id');
  return key ? { key, name: process?.getAttribute('name') || key } : undefined;
}
