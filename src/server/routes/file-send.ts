import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';
import type { ByteRange } from '../lib/storage/index.js';
import type { DownloadInfo } from '../services/files/files.js';

/**
 * The Range header's one range of a file of `size` bytes: undefined for none or one this server
 * does not serve (several ranges, a malformed header: the whole file is sent, as RFC 9110
 * allows), 'unsatisfiable' for a range past the end.
 */
export function rangeOf(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return undefined;
  return { start, end };
}

/** Content-Disposition with the original name: an ASCII fallback and the RFC 5987 UTF-8 name. */
export function contentDisposition(name: string, isInline: boolean): string {
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${isInline ? 'inline' : 'attachment'}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

const isPreviewable = (contentType: string): boolean =>
  /^image\/(jpeg|png|gif|bmp|webp)$/.test(contentType) || contentType === 'application/pdf';

/**
 * Sends a stored file for GET or HEAD: the original name (RFC 5987), ETag and If-None-Match,
 * one byte range (If-Range), inline for pictures and PDF, and for HEAD the headers only,
 * without reading the bytes. `disposition` 'attachment' always offers it as a download.
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: DownloadInfo,
  disposition: 'auto' | 'attachment' = 'auto',
): Promise<FastifyReply> {
  const { record } = file;
  const etag = `"${file.sha256}"`;
  void reply
    .header('etag', etag)
    .header('cache-control', 'private, no-cache')
    .header('accept-ranges', 'bytes')
    .header('x-content-type-options', 'nosniff');
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))
    return reply.code(304).send();
  const isInline = disposition === 'auto' && isPreviewable(record.contentType);
  void reply
    .header('content-type', isInline ? record.contentType : 'application/octet-stream')
    .header('content-disposition', contentDisposition(record.originalFilename, isInline));
  const ifRange = request.headers['if-range'];
  const range = ifRange && ifRange !== etag ? undefined : rangeOf(request.headers.range, record.sizeBytes);
  if (range === 'unsatisfiable') {
    void reply.header('content-range', `bytes */${record.sizeBytes}`);
    throw new AppError('rangeNotSatisfiable');
  }
  if (request.method === 'HEAD') {
    if (range)
      void reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${record.sizeBytes}`)
        .header('content-length', range.end - range.start + 1);
    else void reply.header('content-length', record.sizeBytes);
    return reply.send();
  }
  if (range) {
    const stream = await file.open(range);
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${record.sizeBytes}`)
      .header('content-length', range.end - range.start + 1)
      .send(stream);
  }
  const stream = await file.open();
  return reply.header('content-length', record.sizeBytes).send(stream);
}
