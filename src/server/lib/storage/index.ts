import type { Config } from '../config.js';
import { LocalFileStorage } from './local.js';
import { S3FileStorage } from './s3.js';
import type { FileStorage } from './types.js';

export type { ByteRange, FileStorage, ListedObject, PutOptions, StoredObject } from './types.js';
export { ObjectTooLargeError } from './types.js';

/**
 * A partial file this old belongs to no live upload (an upload of FILE_MAX_MB takes far less):
 * its process died. Younger ones may be another process's upload in progress.
 */
const PARTIAL_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * The storage of uploaded files for this configuration: an S3-compatible store when S3_BUCKET is
 * set (what several server processes need), else the local directory (FILES_DIR, by default
 * DATA_DIR/files). Opening the local one removes partial files that died with their process.
 */
export async function openFileStorage(config: Pick<Config, 'files'>): Promise<FileStorage> {
  if (config.files.s3) return new S3FileStorage(config.files.s3);
  const storage = new LocalFileStorage(config.files.dir);
  await storage.sweepPartials(PARTIAL_MAX_AGE_MS);
  return storage;
}
