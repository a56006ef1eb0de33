import NProgress from 'nprogress';
import 'nprogress/nprogress.css';
import { PROGRESS_OPTIONS } from '../../web/progress.js';

NProgress.configure({ showSpinner: false, ...PROGRESS_OPTIONS });

/** docs/product.md §2.1: a progress bar while a navigation (and its route chunk) is under way. */
export const progress = {
  start: (): void => {
    NProgress.start();
  },
  done: (): void => {
    NProgress.done();
  },
};
