/**
 * files: upload and download throughput of BENCH_FILES_COUNT (50) files of BENCH_FILES_MB (10) MB
 * through the HTTP API of the real server (`node dist/server/main.js`, PGlite, the local storage
 * under its DATA_DIR), one request at a time, with the server's RSS sampled every 10 ms; beside a
 * plain streamed copy of the same bytes on the same disk, in rounds alternating with the uploads. Goals: RSS
 * grows by less than 64 MB over idle (uploads and downloads stream); throughput at least half of
 * the plain copy (upload: the median of the rounds' ratios, each round's uploads over its copies).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  openSync,
  closeSync,
  writeSync,
  rmSync,
  mkdirSync,
} from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { figure, type SuiteResult } from './lib/report.js';
import {
  ADMIN_PASSWORD,
  ensureServerBuilt,
  envNumber,
  freePort,
  median,
  readCpuSeconds,
  readMemory,
  round,
  sampleMemory,
  SERVER_ENTRY,
  signIn,
  sleep,
  spawnNode,
  tempDir,
  waitForHttp,
} from './lib/util.js';

const SUITE = 'files';
const GOAL_RSS_GROWTH_MB = 64;
const GOAL_COPY_RATIO = 0.5;
const BOUNDARY = '----ecobid-bench-files';
/** Rounds of copies and uploads, alternating (BENCH_FILES_COUNT split among them). */
const FILES_ROUNDS = 5;

/** A PDF-looking file of `bytes` bytes (the upload sniffs a type it accepts), random after the header. */
function writeSource(path: string, bytes: number): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'w');
  const header = Buffer.from('%PDF-1.4\n');
  writeSync(fd, header);
  hash.update(header);
  let left = bytes - header.length;
  while (left > 0) {
    const chunk = randomBytes(Math.min(left, 1024 * 1024));
    writeSync(fd, chunk);
    hash.update(chunk);
    left -= chunk.length;
  }
  closeSync(fd);
  return hash.digest('hex');
}

function uploadOnce(
  baseUrl: string,
  token: string,
  source: string,
  size: number,
  name: string,
): Promise<number> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const url = new URL(`${baseUrl}/api/file/file/upload`);
  return new Promise<number>((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          'content-length': head.length + size + tail.length,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200) {
            reject(new Error(`upload answered ${response.statusCode ?? 0}: ${body.slice(0, 300)}`));
            return;
          }
          resolve(Number((JSON.parse(body) as { data: { id: number } }).data.id));
        });
      },
    );
    request.on('error', reject);
    request.write(head);
    const stream = createReadStream(source);
    stream.on('error', reject);
    stream.on('end', () => request.end(tail));
    stream.pipe(request, { end: false });
  });
}

/** Downloads a file, counting (and, when asked, hashing) its bytes without keeping them. */
function downloadOnce(
  baseUrl: string,
  token: string,
  id: number,
  isHashed: boolean,
): Promise<{ bytes: number; sha256?: string }> {
  const url = new URL(`${baseUrl}/api/file/file/download?id=${id}`);
  return new Promise((resolve, reject) => {
    http
      .get(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          agent: false,
          headers: { authorization: `Bearer ${token}` },
        },
        (response) => {
          if (response.statusCode !== 200) {
            reject(new Error(`download answered ${response.statusCode ?? 0}`));
            response.resume();
            return;
          }
          const hash = isHashed ? createHash('sha256') : undefined;
          let bytes = 0;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            hash?.update(chunk);
          });
          response.on('end', () => resolve({ bytes, ...(hash ? { sha256: hash.digest('hex') } : {}) }));
          response.on('error', reject);
        },
      )
      .on('error', reject);
  });
}

export async function runFiles(log: (line: string) => void): Promise<SuiteResult> {
  const count = envNumber('BENCH_FILES_COUNT', 50);
  const megabytes = envNumber('BENCH_FILES_MB', 10);
  const size = megabytes * 1024 * 1024;
  const totalMb = (count * size) / (1024 * 1024);
  const dir = tempDir('files');
  try {
    const source = join(dir.path, 'source.pdf');
    const sourceHash = writeSource(source, size);

    const port = await freePort();
    ensureServerBuilt();
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the server when it stops.
    const server = spawnNode(SERVER_ENTRY, {
      nodeArgs: process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
        : [],
      env: {
        ...process.env,
        ADMIN_PASSWORD,
        DATA_DIR: join(dir.path, 'data'),
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(port),
        FILE_MAX_MB: String(Math.max(10, megabytes)),
        DATABASE_URL: '',
      },
    });
    try {
      await waitForHttp(port, server, 300_000);
      const baseUrl = `http://127.0.0.1:${port}`;
      const token = await signIn(baseUrl);
      // Warm-up: one small upload and download, then let the heap settle before reading idle RSS.
      const warm = await uploadOnce(baseUrl, token, source, size, 'warm.pdf');
      await downloadOnce(baseUrl, token, warm, false);
      await sleep(2000);
      const idleMb = readMemory(server.pid)?.rssMb ?? Number.NaN;

      // The plain copy (the same bytes streamed file to file on the same disk) and the uploads in
      // alternating rounds, the order swapped every other round, so both see the same machine
      // load: on the shared 2-core machine a copy timed minutes before the uploads swung from
      // 90 to 900 MB/s while the uploads ran, which made their ratio mean little.
      const copyDir = join(dir.path, 'copies');
      mkdirSync(copyDir);
      const rounds = Math.min(FILES_ROUNDS, count);
      const uploadMemory = sampleMemory(server.pid);
      let copySeconds = 0;
      let uploadSeconds = 0;
      // The server's CPU time: less sensitive than MB/s to what else the machine runs.
      let uploadCpuSeconds = 0;
      /** Each round's upload MB/s over the same round's copy MB/s: both saw the same machine load. */
      const roundRatios: number[] = [];
      const ids: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const first = Math.floor((count * round) / rounds);
        const last = Math.floor((count * (round + 1)) / rounds);
        let roundCopySeconds = 0;
        let roundUploadSeconds = 0;
        const copy = async (): Promise<void> => {
          const started = performance.now();
          for (let index = first; index < last; index += 1)
            await pipeline(createReadStream(source), createWriteStream(join(copyDir, `copy-${index}.pdf`)));
          roundCopySeconds = (performance.now() - started) / 1000;
        };
        const upload = async (): Promise<void> => {
          const cpuStart = readCpuSeconds(server.pid);
          const started = performance.now();
          for (let index = first; index < last; index += 1)
            ids.push(await uploadOnce(baseUrl, token, source, size, `bench-${index}.pdf`));
          roundUploadSeconds = (performance.now() - started) / 1000;
          uploadCpuSeconds += readCpuSeconds(server.pid) - cpuStart;
        };
        if (round % 2 === 0) {
          await copy();
          await upload();
        } else {
          await upload();
          await copy();
        }
        copySeconds += roundCopySeconds;
        uploadSeconds += roundUploadSeconds;
        // The same bytes both ways, so the ratio of MB/s is the ratio of the times.
        roundRatios.push(roundCopySeconds / roundUploadSeconds);
      }
      const roundRatio = median(roundRatios);
      const uploadPeak = uploadMemory.stop();
      rmSync(copyDir, { recursive: true, force: true });
      const copyMbPerSecond = totalMb / copySeconds;
      log(
        `  plain copy: ${count} × ${megabytes} MB in ${copySeconds.toFixed(2)} s = ${copyMbPerSecond.toFixed(0)} MB/s (in ${rounds} rounds alternating with the uploads)`,
      );
      log(
        `  upload / plain copy by round: ${roundRatios.map((ratio) => ratio.toFixed(3)).join(', ')} (median ${roundRatio.toFixed(3)})`,
      );

      const downloadMemory = sampleMemory(server.pid);
      const downloadStarted = performance.now();
      let downloaded = 0;
      let lastHash: string | undefined;
      for (const [index, id] of ids.entries()) {
        const result = await downloadOnce(baseUrl, token, id, index === ids.length - 1);
        downloaded += result.bytes;
        lastHash = result.sha256 ?? lastHash;
      }
      const downloadSeconds = (performance.now() - downloadStarted) / 1000;
      const downloadPeak = downloadMemory.stop();
      if (downloaded !== count * size)
        throw new Error(`downloaded ${downloaded} bytes, expected ${count * size}`);
      if (lastHash !== sourceHash) throw new Error('the last download does not match the uploaded bytes');

      const uploadMbPerSecond = totalMb / uploadSeconds;
      const downloadMbPerSecond = totalMb / downloadSeconds;
      const peakMb = Math.max(uploadPeak.peakRssMb, downloadPeak.peakRssMb);
      const growthMb = peakMb - idleMb;
      log(
        `  upload: ${uploadMbPerSecond.toFixed(0)} MB/s (${uploadSeconds.toFixed(2)} s, server CPU ${uploadCpuSeconds.toFixed(2)} s), download: ${downloadMbPerSecond.toFixed(0)} MB/s (${downloadSeconds.toFixed(2)} s), ` +
          `RSS idle ${idleMb.toFixed(0)} MB → peak ${uploadPeak.peakRssMb.toFixed(0)} MB uploading, ${downloadPeak.peakRssMb.toFixed(0)} MB downloading`,
      );
      return {
        suite: SUITE,
        figures: [
          figure(
            SUITE,
            'plain streamed copy on the same disk',
            copyMbPerSecond,
            'MB/s',
            undefined,
            `${count} × ${megabytes} MB`,
          ),
          figure(
            SUITE,
            'upload through the API',
            uploadMbPerSecond,
            'MB/s',
            undefined,
            'one request at a time',
          ),
          figure(
            SUITE,
            'download through the API',
            downloadMbPerSecond,
            'MB/s',
            undefined,
            'bytes checked (sha256 of the last)',
          ),
          figure(
            SUITE,
            'server CPU per GB uploaded',
            (uploadCpuSeconds * 1024) / totalMb,
            's',
            undefined,
            'user + system, every thread of the server',
          ),
          figure(
            SUITE,
            'upload / plain copy',
            roundRatio,
            'ratio',
            { op: '>=', value: GOAL_COPY_RATIO },
            `median of ${rounds} rounds' ratios`,
          ),
          figure(
            SUITE,
            'upload / plain copy, totals',
            uploadMbPerSecond / copyMbPerSecond,
            'ratio',
            undefined,
            'all rounds together',
          ),
          figure(SUITE, 'download / plain copy', downloadMbPerSecond / copyMbPerSecond, 'ratio', {
            op: '>=',
            value: GOAL_COPY_RATIO,
          }),
          figure(
            SUITE,
            'server RSS growth over idle',
            growthMb,
            'MB',
            { op: '<', value: GOAL_RSS_GROWTH_MB },
            `idle ${round(idleMb)} MB, peak ${round(peakMb)} MB`,
          ),
        ],
        details: {
          count,
          megabytes,
          copySeconds,
          uploadSeconds,
          uploadCpuSeconds,
          roundRatios,
          downloadSeconds,
          idleMb,
          upload: uploadPeak,
          download: downloadPeak,
        },
      };
    } finally {
      await server.stop();
    }
  } finally {
    await dir.remove();
  }
}
