import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Appends one JSON line to a file, creating its directory first. */
export async function appendJsonLine(path: string, record: Record<string, unknown>): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, `${JSON.stringify(record)}\n`, 'utf8');
}
