import { useEffect, type RefObject } from 'react';

/** The scrolling parts antd tables render (a wide table, a fixed-height body, a virtual list). */
const TABLE_SCROLLERS = '.ant-table-content, .ant-table-body, .ant-table-tbody-virtual-holder';

/**
 * Makes the scrolling body of the tables inside `box` a named region reached with Tab, so that
 * it scrolls from the keyboard (WCAG 2.1.1, axe scrollable-region-focusable). Runs after every
 * render: antd may render its scroller anew.
 */
export function useTableScrollRegion(box: RefObject<HTMLElement | null>, label: string): void {
  useEffect(() => {
    box.current?.querySelectorAll<HTMLElement>(TABLE_SCROLLERS).forEach((scroller) => {
      scroller.tabIndex = 0;
      scroller.setAttribute('role', 'region');
      scroller.setAttribute('aria-label', label);
    });
  });
}
