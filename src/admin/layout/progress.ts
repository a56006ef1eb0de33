import NProgress from 'nprogress';
import 'nprogress/nprogress.css';

NProgress.configure({ showSpinner: false });

/** SPEC §2.1: a progress bar while a navigation (and its route chunk) is under way. */
export const progress = {
  start: (): void => {
    NProgress.start();
  },
  done: (): void => {
    NProgress.done();
  },
};
