/** One part of a multipart/form-data body: a plain field, or a file when it has a file name. */
export interface FormPart {
  name: string;
  filename?: string;
  type?: string;
  body: Buffer | string;
}

export interface MultipartRequest {
  payload: Buffer;
  headers: { 'content-type': string };
}

/** The boundary every body of multipartForm uses (for a test that writes a request by hand). */
export const BOUNDARY = '----ecobid-test-boundary';

/** A multipart/form-data body of the parts, in order, with the header that names its boundary. */
export function multipartForm(parts: FormPart[]): MultipartRequest {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`,
      ),
      Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

/** A form posting one file in the field `file` (after any plain fields), as the upload and import routes take it. */
export function fileUpload(
  filename: string,
  body: Buffer | string,
  { type = 'application/octet-stream', fields = {} }: { type?: string; fields?: Record<string, string> } = {},
): MultipartRequest {
  return multipartForm([
    ...Object.entries(fields).map(([name, value]) => ({ name, body: value })),
    { name: 'file', filename, type, body },
  ]);
}
