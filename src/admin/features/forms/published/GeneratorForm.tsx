import { Button, Card, Empty, List, Result, Spin, Typography } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useT } from '../../../i18n.js';
import { entityTitle } from '../../../entity/labels.js';
import { useResources } from '../../../entity/resources.js';
import { fillPath } from './forms-api.js';

const EntityForm = lazy(() => import('../../../entity/EntityForm.js'));

const ONLINE = 'online/';

/**
 * docs/product.md §2.3 /generatorform: a published form filled in outside the back-office shell, at a link
 * an administrator hands out (/admin/generatorform?form=<code>) to signed-in users. The same
 * generated form, validators and API as the back-office screen; without a form, the published
 * forms to choose from.
 */
export default function GeneratorForm() {
  const t = useT();
  const [params] = useSearchParams();
  const code = params.get('form') ?? '';
  const resources = useResources();
  const [state, setState] = useState<'filling' | 'saved' | 'closed'>('filling');
  const [round, setRound] = useState(0);
  if (!resources) return <Spin className="admin-page-spin" />;
  const published = [...resources.values()].filter((resource) => resource.base.startsWith(ONLINE));
  const resource = code ? published.find((item) => item.name === code) : undefined;
  const title = (key: string, values?: Record<string, unknown>): string => t(`forms.fill.${key}`, values);

  if (!resource?.entity) {
    return (
      <main className="forms-fill-page" aria-labelledby="forms-fill-title">
        <Card>
          <Typography.Title level={1} id="forms-fill-title" className="forms-fill-title">
            {title('choose')}
          </Typography.Title>
          {code ? (
            <Typography.Paragraph type="danger">{title('unknown', { code })}</Typography.Paragraph>
          ) : null}
          {published.length === 0 ? (
            <Empty description={title('none')} />
          ) : (
            <List
              dataSource={published}
              renderItem={(item) => (
                <List.Item>
                  <Link to={fillPath(item.name)}>
                    {entityTitle(t, item.name, item.entity?.title ?? item.name)}
                  </Link>
                </List.Item>
              )}
            />
          )}
        </Card>
      </main>
    );
  }
  const entity = resource.entity;
  const name = entityTitle(t, entity.name, entity.title);
  return (
    <main className="forms-fill-page" aria-labelledby="forms-fill-title">
      <Card>
        <Typography.Title level={1} id="forms-fill-title" className="forms-fill-title">
          {name}
        </Typography.Title>
        {entity.schema.description ? (
          <Typography.Paragraph>{entity.schema.description}</Typography.Paragraph>
        ) : null}
        {state === 'saved' ? (
          <Result
            status="success"
            title={title('saved')}
            extra={
              <Button
                type="primary"
                onClick={() => (setState('filling'), setRound(round + 1))}
                data-testid="fill-again"
              >
                {title('again')}
              </Button>
            }
          />
        ) : (
          <Button type="primary" onClick={() => setState('filling')} data-testid="fill-open">
            {title('open')}
          </Button>
        )}
      </Card>
      {state === 'filling' ? (
        <Suspense fallback={<Spin />}>
          <EntityForm
            key={round}
            entity={entity}
            mode="create"
            onClose={(hasSaved) => setState(hasSaved ? 'saved' : 'closed')}
          />
        </Suspense>
      ) : null}
    </main>
  );
}
