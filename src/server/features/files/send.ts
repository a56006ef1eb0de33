import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentDisposition, rangeOf } from '../../lib/download.js';
import { AppError } from '../../lib/errors.js';
import type { DownloadInfo } from './services/files.js';

const isPreviewable = (contentType: string): boolean =>
  /^image\/(jpeg|png|gif|bmp|webp)$/.test(contentType) || contentType === 'application/pdf';

/**
 * Sends a stored file for GET or HEAD: the original name (RFC 5987), ETag and If-None-Match,
 * one byte range (If-Range), inline for pictures and PDF, and for HEAD the headers only,
 * without reading the bytes. `disposition` 'attachment' always offers it as a download.
 */
export async function sendFile({
  request,
  reply,
  file,
  disposition = 'auto',
}: {
  request: FastifyRequest;
  reply: FastifyReply;
  file: DownloadInfo;
  disposition?: 'auto' | 'attachment';
}): Promise<FastifyReply> {
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
