import { DownloadOutlined, EditOutlined } from '@ant-design/icons';
import { Alert, Button, Space, Spin } from 'antd';
import dayjs from 'dayjs';
import { useNavigate } from 'react-router';
import { useT } from '../../../i18n.js';
import { useApiGet } from '../../../lib/api.js';
import { ReportResultView } from './ReportResultView.js';
import { REPORT_API, useReportDownload, type ReportWithResult } from './report-api.js';
import './charts.css';

/** A saved report's page in the menu (/report/view/<id>): its chart and table, run now. */
export default function ReportView({ id }: { id: number }) {
  const t = useT();
  const navigate = useNavigate();
  const download = useReportDownload();
  const view = useApiGet<ReportWithResult>(`${REPORT_API}/view`, {
    id,
    utcOffset: dayjs().utcOffset(),
  });
  if (view.isLoading) return <Spin className="admin-page-spin" />;
  if (!view.data) return <Alert type="warning" showIcon message={t('report.notFound')} />;
  const { report, result } = view.data;
  return (
    <div data-testid="report-view">
      <Space className="report-toolbar">
        <Button
          icon={<DownloadOutlined />}
          onClick={() =>
            void download(report.reportName, {
              entity: report.entity,
              dimensions: report.dimensions,
              measures: report.measures,
              filters: report.filters,
              chartType: report.chartType,
            }).catch(() => undefined)
          }
        >
          {t('report.exportXlsx')}
        </Button>
        <Button icon={<EditOutlined />} onClick={() => navigate('/report/reportdesigner')}>
          {t('report.openDesigner')}
        </Button>
      </Space>
      <ReportResultView result={result} chartType={report.chartType} title={report.reportName} />
    </div>
  );
}
