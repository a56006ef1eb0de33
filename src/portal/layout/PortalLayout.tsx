import { useEffect, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { NoticeList } from '../pages/NoticeList.js';
import { Footer } from './Footer.js';
import { Header } from './Header.js';
import { SidePanel } from './SidePanel.js';

/**
 * The public layout of SPEC §2.2: header tabs, the page, footer, side panel and back-to-top (the
 * consultation button is on every screen: App). The notice list stays mounted once visited (kept alive), so its page,
 * search and scroll position survive a visit to a notice.
 */
export function PortalLayout() {
  const { pathname } = useLocation();
  const isNoticeList = pathname === '/noticeList';
  const [hasVisitedNotices, setHasVisitedNotices] = useState(isNoticeList);
  useEffect(() => {
    if (isNoticeList) setHasVisitedNotices(true);
  }, [isNoticeList]);
  return (
    <div className="portal">
      <Header />
      <main className="portal-main">
        {hasVisitedNotices && (
          <div hidden={!isNoticeList}>
            <NoticeList isActive={isNoticeList} />
          </div>
        )}
        {!isNoticeList && <Outlet />}
      </main>
      <Footer />
      <SidePanel />
    </div>
  );
}
