import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/**
 * The file storages the files suites run on: the local directory and an S3-compatible server
 * (s3rver, on loopback, its objects in a temporary directory). Each gives the server's
 * environment and reads what is stored without going through the server's storage code.
 */
export interface StorageBackend {
  name: 'local' | 's3';
  /** Starts the backend; the environment the app is started with. */
  start(): Promise<Record<string, string>>;
  /** Keys of the complete objects stored. */
  objectKeys(): Promise<string[]>;
  /** Uploads under way: partial files (local) or parts of unfinished multipart uploads (S3). */
  partials(): string[];
  /** Every path written under the backend's directory (for checks that no name leaked in). */
  allPaths(): string[];
  stop(): Promise<void>;
}

function walk(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    try {
      return statSync(path).isDirectory() ? walk(path) : [path];
    } catch {
      return [];
    }
  });
}

export function localBackend(): StorageBackend {
  const dir = mkdtempSync(join(tmpdir(), 'ecobid-files-'));
  const objects = join(dir, 'objects');
  return {
    name: 'local',
    start: () => Promise.resolve({ FILES_DIR: dir }),
    objectKeys: () => Promise.resolve(walk(objects).map((path) => path.slice(objects.length + 1))),
    partials: () => walk(join(dir, 'partial')),
    allPaths: () => walk(dir),
    stop: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

export const S3_BUCKET = 'ecobid-files';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export function s3Backend(): StorageBackend {
  const dir = mkdtempSync(join(tmpdir(), 'ecobid-s3rver-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: dir,
    configureBuckets: [{ name: S3_BUCKET }],
  });
  let client: S3Client | undefined;
  return {
    name: 's3',
    async start() {
      const { port } = await server.run();
      const endpoint = `http://127.0.0.1:${port}`;
      client = new S3Client({
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: CREDENTIALS,
      });
      return {
        S3_ENDPOINT: endpoint,
        S3_BUCKET,
        S3_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
        // Nothing may reach the local directory when S3 is configured.
        FILES_DIR: join(dir, 'not-used'),
      };
    },
    async objectKeys() {
      if (!client) throw new Error('the S3 backend is not started');
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: S3_BUCKET, ...(token ? { ContinuationToken: token } : {}) }),
        );
        for (const item of page.Contents ?? []) if (item.Key) keys.push(item.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys;
    },
    partials: () => walk(dir).filter((path) => /_S3rver_uploads\/[^/]+\/\d+$/.test(path)),
    allPaths: () => walk(dir),
    async stop() {
      client?.destroy();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
