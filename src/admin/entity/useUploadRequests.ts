import type { UploadProps } from 'antd';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { errorText } from '../providers/data.js';

type CustomRequest = NonNullable<UploadProps['customRequest']>;
type RequestOptions = Parameters<CustomRequest>[0];

export interface UploadStep {
  file: File;
  signal: AbortSignal;
  onProgress: (percent: number) => void;
}

export interface UploadRequests {
  /** antd Upload's customRequest: runs `send` with its own AbortController per file. */
  customRequest: CustomRequest;
  /** antd Upload's onRemove: removing a file still on its way cancels it. */
  onRemove: NonNullable<UploadProps['onRemove']>;
  /** Cancels every upload still running (a dialog closed, a page left). */
  cancelAll: () => void;
}

/**
 * The cancellable uploads of an antd Upload list: each file gets an AbortController kept by its
 * uid, so removing it (or closing the dialog) stops the request and the server keeps nothing.
 * A failure is handed to antd (the file shows as failed) and to `onFailure` with the server's
 * text; a cancelled upload is not a failure. Uploads still running when the component unmounts
 * are cancelled.
 */
export function useUploadRequests<T>(
  send: (step: UploadStep) => Promise<T>,
  options: { onSuccess?: (result: T) => void; onFailure?: (text: string, file: File) => void } = {},
): UploadRequests {
  const uploads = useRef(new Map<string, AbortController>());
  const latest = useRef({ send, options });
  latest.current = { send, options };

  const cancelAll = useCallback(() => {
    for (const controller of uploads.current.values()) controller.abort();
    uploads.current.clear();
  }, []);
  useEffect(() => cancelAll, [cancelAll]);

  return useMemo<UploadRequests>(
    () => ({
      customRequest: ({ file, onProgress, onSuccess, onError }: RequestOptions) => {
        const blob = file as File & { uid: string };
        const controller = new AbortController();
        uploads.current.set(blob.uid, controller);
        void (async () => {
          try {
            const result = await latest.current.send({
              file: blob,
              signal: controller.signal,
              onProgress: (percent) => onProgress?.({ percent }),
            });
            onSuccess?.(result);
            latest.current.options.onSuccess?.(result);
          } catch (error) {
            if (controller.signal.aborted) return;
            const text = errorText(error);
            latest.current.options.onFailure?.(text, blob);
            onError?.(new Error(text));
          } finally {
            uploads.current.delete(blob.uid);
          }
        })();
      },
      onRemove: (file) => {
        uploads.current.get(file.uid)?.abort();
        uploads.current.delete(file.uid);
        return true;
      },
      cancelAll,
    }),
    [cancelAll],
  );
}
