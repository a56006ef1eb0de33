import { Alert, Breadcrumb, Input } from 'antd';
import { useId } from 'react';
import { routeTitle, useT } from '../../../i18n.js';
import { useMenus } from '../../../layout/MenuProvider.js';
import { matchChain, type AppRoute } from '../../../lib/menus.js';
import { DemoPage } from './parts.js';

/**
 * A leaf of the nested menus (/nested/menu1/menu1-2/menu1-2-1 …): where it sits in the menu tree,
 * and a field whose text stays while the page is kept alive in the tags view.
 */
export default function NestedPage({ route }: { route: AppRoute }) {
  const t = useT();
  const { routes } = useMenus();
  const inputId = useId();
  const chain = matchChain(routes, route.path);
  return (
    <DemoPage route={route} intro={t('examples.nested.intro', { depth: chain.length })}>
      <div data-testid="nested-chain">
        <Breadcrumb
          className="example-toolbar"
          items={chain.map((item) => ({ key: item.code, title: routeTitle(item) }))}
        />
      </div>
      <Alert
        type="info"
        showIcon
        message={t('examples.nested.path', { path: route.path })}
        className="example-toolbar"
      />
      <label htmlFor={inputId}>{t('examples.nested.input')}</label>
      <Input
        id={inputId}
        placeholder={routeTitle(route)}
        style={{ maxWidth: 360, display: 'block', marginTop: 8 }}
      />
    </DemoPage>
  );
}
