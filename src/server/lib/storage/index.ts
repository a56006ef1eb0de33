import type { Config } from '../config.js';
import { LocalFileStorage } from './local.js';
import type { FileStorage } from './types.js';

export type { ByteRange, FileStorage, PutOptions, StoredObject } from './types.js';
export { ObjectTooLargeError } from './types.js';

/**
 * The storage of uploaded files for this configuration: the local directory (FILES_DIR, by
 * default DATA_DIR/files). An S3-compatible backend (S3_*) is another FileStorage chosen here.
 */
export function openFileStorage(config: Pick<Config, 'files'>): FileStorage {
  return new LocalFileStorage(config.files.dir);
}
