import { s3Backend } from './files-backends.js';
import { filesSuite } from './files-suite.js';

/** The files suite on an S3-compatible store (s3rver on loopback, S3_* settings). */
filesSuite(s3Backend);
