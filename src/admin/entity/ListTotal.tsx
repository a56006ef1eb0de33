import { Button, Tooltip } from 'antd';
import { useT } from '../i18n.js';

/**
 * The list's count: 「共 1,234 条」 when exact; 「约 1,234,567 条」 when the server estimated it (a
 * large table), which the user can click to have every row counted.
 */
export function ListTotal({
  total,
  isExact,
  isCounting,
  onCountExactly,
}: {
  total: number;
  isExact: boolean;
  isCounting: boolean;
  onCountExactly: () => void;
}) {
  const t = useT();
  const number = total.toLocaleString('en-US');
  if (isExact) return <span data-testid="list-total">{t('admin.crud.total', { total: number })}</span>;
  return (
    <Tooltip title={t('admin.crud.countExactly')}>
      <Button
        type="link"
        size="small"
        loading={isCounting}
        onClick={onCountExactly}
        data-testid="list-total"
        aria-label={`${t('admin.crud.totalEstimated', { total: number })} ${t('admin.crud.countExactly')}`}
      >
        {t('admin.crud.totalEstimated', { total: number })}
      </Button>
    </Tooltip>
  );
}
