import {
  DeleteOutlined,
  DownloadOutlined,
  EyeOutlined,
  MinusCircleOutlined,
  PlusOutlined,
  SaveOutlined,
} from '@ant-design/icons';
import {
  App,
  Button,
  Card,
  Col,
  Empty,
  Form,
  Input,
  Popconfirm,
  Radio,
  Row,
  Select,
  Space,
  Spin,
} from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { useT } from '../../../i18n.js';
import { useApiGet, useApiWrite, withQuery } from '../../../lib/api.js';
import { ReportFilterValue } from './ReportFilterValue.js';
import { ReportResultView } from './ReportResultView.js';
import {
  definitionBody,
  REPORT_API,
  useReloadMenus,
  useReportDownload,
  type ChartType,
  type ReportDefinition,
  type ReportEntity,
  type ReportResult,
  type SavedReport,
} from './report-api.js';
import './charts.css';

type MeasureFn = 'count' | 'sum' | 'avg';
interface MeasureRow {
  fn: MeasureFn;
  field?: string;
}
interface FilterRow {
  field?: string;
  value: string;
}

const CHART_TYPES: ChartType[] = ['bar', 'line', 'pie', 'table'];
const MAX_MEASURES = 4;
const MAX_FILTERS = 6;

const measureText = (row: MeasureRow): string | undefined =>
  row.fn === 'count' ? 'count:*' : row.field ? `${row.fn}:${row.field}` : undefined;

function measureRow(text: string): MeasureRow {
  const [fn, field] = text.split(':');
  return fn === 'sum' || fn === 'avg' ? { fn, field } : { fn: 'count' };
}

/**
 * /report/reportdesigner (docs/product.md §2.3): pick an entity, the fields to group by, the
 * measures, filters and a chart; preview it, download it as .xlsx, save it as a report that
 * becomes a page of the menu. The server checks every field against the caller's permissions.
 */
export default function ReportDesigner() {
  const t = useT();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const entities = useApiGet<ReportEntity[]>(`${REPORT_API}/entities`);
  const saved = useApiGet<{ records: SavedReport[] }>('/api/demo/report/query', {
    currentPage: 1,
    pageSize: 200,
  });
  const { send, isSending } = useApiWrite();
  const download = useReportDownload();
  const reloadMenus = useReloadMenus();

  const [entityName, setEntityName] = useState<string | undefined>(undefined);
  const [dimensions, setDimensions] = useState<string[]>([]);
  const [measures, setMeasures] = useState<MeasureRow[]>([{ fn: 'count' }]);
  const [filters, setFilters] = useState<FilterRow[]>([]);
  const [chartType, setChartType] = useState<ChartType>('bar');
  const [name, setName] = useState('');
  const [current, setCurrent] = useState<SavedReport | undefined>(undefined);
  const [result, setResult] = useState<ReportResult | undefined>(undefined);
  const [isRunning, setRunning] = useState(false);

  const entity = entities.data?.find((item) => item.name === entityName);
  const dimensionFields = useMemo(() => entity?.fields.filter((field) => field.isDimension) ?? [], [entity]);
  const measureFields = useMemo(() => entity?.fields.filter((field) => field.isMeasure) ?? [], [entity]);
  const filterFields = useMemo(() => entity?.fields.filter((field) => field.filter) ?? [], [entity]);

  // The first entity, once they are known.
  useEffect(() => {
    if (!entityName && entities.data?.length)
      setEntityName((entities.data.find((item) => item.name === 'purchase') ?? entities.data[0])?.name);
  }, [entities.data, entityName]);

  const definition = (): ReportDefinition | undefined => {
    const texts = measures.map(measureText);
    if (!entityName || texts.some((text) => text === undefined)) return undefined;
    return {
      entity: entityName,
      dimensions,
      measures: [...new Set(texts as string[])],
      filters: Object.fromEntries(
        filters
          .filter((row) => row.field && row.value.trim() !== '')
          .map((row) => [row.field as string, row.value.trim()]),
      ),
      chartType,
    };
  };

  const pickEntity = (value: string): void => {
    setEntityName(value);
    setDimensions([]);
    setMeasures([{ fn: 'count' }]);
    setFilters([]);
    setResult(undefined);
    setCurrent(undefined);
  };

  const open = (id: number): void => {
    const report = saved.data?.records.find((item) => item.id === id);
    if (!report) return;
    setCurrent(report);
    setName(report.reportName);
    setEntityName(report.entity);
    setDimensions(report.dimensions ?? []);
    setMeasures((report.measures ?? ['count:*']).map(measureRow));
    setFilters(
      Object.entries(report.filters ?? {}).map(([field, value]) => ({ field, value: String(value) })),
    );
    setChartType(report.chartType);
    setResult(undefined);
  };

  const preview = async (): Promise<void> => {
    const body = definition();
    if (!body) {
      void message.warning(t('report.incomplete'));
      return;
    }
    setRunning(true);
    try {
      setResult(await send<ReportResult>('post', `${REPORT_API}/run`, definitionBody(body)));
    } catch {
      // shown by the HTTP client
    } finally {
      setRunning(false);
    }
  };

  const save = async (): Promise<void> => {
    const body = definition();
    if (!body || name.trim() === '') {
      void message.warning(t(name.trim() === '' ? 'report.nameRequired' : 'report.incomplete'));
      return;
    }
    try {
      const answer = await send<SavedReport>('post', `${REPORT_API}/save`, {
        ...definitionBody(body),
        reportName: name.trim(),
        ...(current ? { id: current.id, version: current.version } : {}),
      });
      setCurrent(answer);
      void message.success(t('report.saved'));
      await Promise.all([saved.refetch(), reloadMenus()]);
    } catch {
      // shown by the HTTP client
    }
  };

  const remove = async (): Promise<void> => {
    if (!current) return;
    try {
      await send('post', withQuery(`${REPORT_API}/remove`, { id: current.id }));
      setCurrent(undefined);
      setName('');
      void message.success(t('report.deleted'));
      await Promise.all([saved.refetch(), reloadMenus()]);
    } catch {
      // shown by the HTTP client
    }
  };

  const exportXlsx = async (): Promise<void> => {
    const body = definition();
    if (!body) return;
    try {
      await download(name.trim() || entity?.title || 'report', body);
    } catch {
      // shown by the HTTP client
    }
  };

  if (entities.isLoading) return <Spin className="admin-page-spin" />;
  const title = name.trim() || t('report.untitled');
  return (
    <div className="report-designer" data-testid="report-designer">
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={9}>
          <Card type="inner" title={t('report.design')}>
            <Form layout="vertical">
              <Form.Item label={t('report.savedReports')} htmlFor="report-saved">
                <Space.Compact style={{ width: '100%' }}>
                  <Select
                    id="report-saved"
                    allowClear
                    placeholder={t('report.openSaved')}
                    value={current?.id}
                    onChange={(id: number | undefined) =>
                      id === undefined ? setCurrent(undefined) : open(id)
                    }
                    options={(saved.data?.records ?? []).map((item) => ({
                      value: item.id,
                      label: item.reportName,
                    }))}
                  />
                  <Button
                    disabled={!current}
                    onClick={() => current && navigate(`/report/view/${current.id}`)}
                    aria-label={t('report.openPage')}
                    icon={<EyeOutlined />}
                  />
                </Space.Compact>
              </Form.Item>
              <Form.Item label={t('report.entity')} htmlFor="report-entity">
                <Select
                  id="report-entity"
                  showSearch
                  optionFilterProp="label"
                  value={entityName}
                  onChange={pickEntity}
                  options={(entities.data ?? []).map((item) => ({ value: item.name, label: item.title }))}
                />
              </Form.Item>
              <Form.Item
                label={t('report.dimensions')}
                htmlFor="report-dimensions"
                extra={t('report.dimensionsHelp')}
              >
                <Select
                  id="report-dimensions"
                  mode="multiple"
                  maxCount={2}
                  value={dimensions}
                  onChange={setDimensions}
                  options={dimensionFields.map((field) => ({ value: field.name, label: field.title }))}
                />
              </Form.Item>
              <Form.Item label={t('report.measures')}>
                {measures.map((row, index) => (
                  <div className="report-filter-row" key={index}>
                    <Select
                      aria-label={t('report.measureFunction')}
                      style={{ width: 120 }}
                      value={row.fn}
                      onChange={(fn: MeasureFn) =>
                        setMeasures(
                          measures.map((item, at) =>
                            at === index ? { fn, field: fn === 'count' ? undefined : item.field } : item,
                          ),
                        )
                      }
                      options={(['count', 'sum', 'avg'] as const).map((fn) => ({
                        value: fn,
                        label: t(`report.fn.${fn}`),
                      }))}
                    />
                    <Select
                      aria-label={t('report.measureField')}
                      style={{ flex: 1 }}
                      disabled={row.fn === 'count'}
                      placeholder={row.fn === 'count' ? t('report.allRows') : t('report.pickNumber')}
                      value={row.field}
                      onChange={(field: string) =>
                        setMeasures(measures.map((item, at) => (at === index ? { ...item, field } : item)))
                      }
                      options={measureFields.map((field) => ({ value: field.name, label: field.title }))}
                    />
                    <Button
                      type="text"
                      disabled={measures.length === 1}
                      aria-label={t('report.removeMeasure')}
                      icon={<MinusCircleOutlined />}
                      onClick={() => setMeasures(measures.filter((_item, at) => at !== index))}
                    />
                  </div>
                ))}
                <Button
                  type="dashed"
                  icon={<PlusOutlined />}
                  disabled={measures.length >= MAX_MEASURES}
                  onClick={() => setMeasures([...measures, { fn: measureFields.length ? 'sum' : 'count' }])}
                >
                  {t('report.addMeasure')}
                </Button>
              </Form.Item>
              <Form.Item label={t('report.filters')}>
                {filters.map((row, index) => (
                  <div className="report-filter-row" key={index}>
                    <Select
                      aria-label={t('report.filterField')}
                      style={{ width: 160 }}
                      value={row.field}
                      onChange={(field: string) =>
                        setFilters(filters.map((item, at) => (at === index ? { field, value: '' } : item)))
                      }
                      options={filterFields.map((field) => ({ value: field.name, label: field.title }))}
                    />
                    <ReportFilterValue
                      field={filterFields.find((field) => field.name === row.field)}
                      value={row.value}
                      onChange={(value) =>
                        setFilters(filters.map((item, at) => (at === index ? { ...item, value } : item)))
                      }
                    />
                    <Button
                      type="text"
                      aria-label={t('report.removeFilter')}
                      icon={<MinusCircleOutlined />}
                      onClick={() => setFilters(filters.filter((_item, at) => at !== index))}
                    />
                  </div>
                ))}
                <Button
                  type="dashed"
                  icon={<PlusOutlined />}
                  disabled={filters.length >= MAX_FILTERS || filterFields.length === 0}
                  onClick={() => setFilters([...filters, { value: '' }])}
                >
                  {t('report.addFilter')}
                </Button>
              </Form.Item>
              <Form.Item label={t('report.chartType')}>
                <Radio.Group
                  optionType="button"
                  value={chartType}
                  onChange={(event) => setChartType(event.target.value as ChartType)}
                  options={CHART_TYPES.map((type) => ({ value: type, label: t(`report.chart.${type}`) }))}
                />
              </Form.Item>
              <Form.Item label={t('report.name')} htmlFor="report-name">
                <Input
                  id="report-name"
                  maxLength={64}
                  value={name}
                  onChange={(event) => setName(event.target.value)}
                />
              </Form.Item>
              <Space wrap>
                <Button
                  type="primary"
                  icon={<EyeOutlined />}
                  loading={isRunning}
                  onClick={() => void preview()}
                >
                  {t('report.preview')}
                </Button>
                <Button icon={<SaveOutlined />} loading={isSending && !isRunning} onClick={() => void save()}>
                  {t(current ? 'report.update' : 'report.save')}
                </Button>
                <Button icon={<DownloadOutlined />} onClick={() => void exportXlsx()}>
                  {t('report.exportXlsx')}
                </Button>
                {current && (
                  <Popconfirm title={t('report.confirmDelete')} onConfirm={() => void remove()}>
                    <Button danger icon={<DeleteOutlined />}>
                      {t('report.delete')}
                    </Button>
                  </Popconfirm>
                )}
              </Space>
            </Form>
          </Card>
        </Col>
        <Col xs={24} xl={15}>
          <Card type="inner" title={t('report.previewTitle', { title })}>
            {result ? (
              <ReportResultView result={result} chartType={chartType} title={title} />
            ) : (
              <Empty description={t('report.previewEmpty')} />
            )}
          </Card>
        </Col>
      </Row>
    </div>
  );
}
