import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { untilStill } from './select.js';
import { apiClient, signedIn, type Check, type E2eContext } from './support.js';

/**
 * 部署流程文件 with a file an Activiti team brings (issue 36): a service task calling a Java class
 * is refused, the message naming it; with 把 Java 代码和脚本部署为外部任务 ticked the same file
 * deploys, the warning names the topic a worker fetches by, and a worker completes the task over
 * the API so the instance ends.
 */

const KEY = 'e2eCodeExternal';
const XML = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:activiti="http://activiti.org/bpmn" targetNamespace="e2e">
  <process id="${KEY}" name="E2E 外部代码" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="charge"/>
    <serviceTask id="charge" name="扣款" activiti:class="org.example.ChargeCard"/>
    <sequenceFlow id="f2" sourceRef="charge" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`;

/** Two processes in one file, each drawn in a diagram of its own (as Camunda Modeler saves them). */
const shape = (id: string, x: number, width = 36, height = 36): string =>
  `<bpmndi:BPMNShape id="${id}_di" bpmnElement="${id}"><dc:Bounds x="${x}" y="80" width="${width}" height="${height}"/></bpmndi:BPMNShape>`;
const edge = (id: string, from: number, to: number): string =>
  `<bpmndi:BPMNEdge id="${id}_di" bpmnElement="${id}"><di:waypoint x="${from}" y="98"/><di:waypoint x="${to}" y="98"/></bpmndi:BPMNEdge>`;
const TWO_PROCESSES = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
  xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC"
  xmlns:di="http://www.omg.org/spec/DD/20100524/DI" targetNamespace="e2e">
  <process id="e2eOrder" name="E2E 订单" isExecutable="true">
    <startEvent id="os"/><sequenceFlow id="of1" sourceRef="os" targetRef="confirm"/>
    <userTask id="confirm" name="确认订单" camunda:assignee="admin"/><sequenceFlow id="of2" sourceRef="confirm" targetRef="oe"/>
    <endEvent id="oe"/>
  </process>
  <process id="e2eShipping" name="E2E 发货" isExecutable="true">
    <startEvent id="ss"/><sequenceFlow id="sf1" sourceRef="ss" targetRef="pack"/>
    <userTask id="pack" name="打包" camunda:assignee="admin"/><sequenceFlow id="sf2" sourceRef="pack" targetRef="se"/>
    <endEvent id="se"/>
  </process>
  <bpmndi:BPMNDiagram id="orderDiagram"><bpmndi:BPMNPlane id="orderPlane" bpmnElement="e2eOrder">
    ${shape('os', 100)}${shape('confirm', 200, 100, 80)}${shape('oe', 360)}${edge('of1', 136, 200)}${edge('of2', 300, 360)}
  </bpmndi:BPMNPlane></bpmndi:BPMNDiagram>
  <bpmndi:BPMNDiagram id="shippingDiagram"><bpmndi:BPMNPlane id="shippingPlane" bpmnElement="e2eShipping">
    ${shape('ss', 100)}${shape('pack', 200, 100, 80)}${shape('se', 360)}${edge('sf1', 136, 200)}${edge('sf2', 300, 360)}
  </bpmndi:BPMNPlane></bpmndi:BPMNDiagram>
</definitions>`;

/** 部署流程文件's dialog with a file chosen (not yet deployed). */
async function chooseFile(page: Page, base: string, name: string, xml: string): Promise<Locator> {
  await page.goto(`${base}/admin/deployment`);
  await page.getByTestId('wf-deployments').waitFor();
  await page.getByRole('button', { name: '部署流程文件' }).click();
  const dialog = page.getByRole('dialog');
  await dialog
    .locator('input[type=file]')
    .setInputFiles({ name, mimeType: 'text/xml', buffer: Buffer.from(xml) });
  await dialog.getByText(name).waitFor();
  return dialog;
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  return [
    {
      name: '部署流程文件 of two processes: both deploy, and an instance of the second shows its own diagram',
      run: async () => {
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword);
        try {
          const dialog = await chooseFile(page, server.url, 'order.bpmn', TWO_PROCESSES);
          await dialog
            .getByRole('button', { name: '部 署' })
            .or(dialog.getByRole('button', { name: '部署' }))
            .click();
          await dialog.waitFor({ state: 'hidden' });
          const api = await apiClient(server.url, 'admin', server.adminPassword);
          const definitions = await api.get<{ records: { key: string }[] }>(
            '/api/activiti/processdefinition/query?latestOnly=true&pageSize=100',
          );
          const keys = definitions.records.map((definition) => definition.key);
          assert.ok(keys.includes('e2eOrder') && keys.includes('e2eShipping'), keys.join());
          const started = await api.post<{ id: number }>('/api/activiti/processinstance/start', {
            processDefinitionKey: 'e2eShipping',
            description: 'e2e 发货',
          });
          await page.goto(`${server.url}/admin/myprocessdetails?id=${started.id}`);
          const pack = page.locator('[data-testid="wf-diagram"] .djs-element[data-element-id="pack"]');
          await pack.first().waitFor();
          assert.match((await pack.first().getAttribute('class')) ?? '', /wf-active/);
          assert.equal(
            await page.locator('[data-testid="wf-diagram"] .djs-element[data-element-id="confirm"]').count(),
            0,
          );
          await page.screenshot({ path: `${screenshots}/deploy-two-processes-diagram.png` });
        } finally {
          await context.close();
        }
      },
    },
    {
      name: '部署流程文件: Java code refused, then deployed as an external task a worker completes',
      run: async () => {
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword);
        try {
          const dialog = await chooseFile(page, server.url, 'charge.bpmn20.xml', XML);
          const deploy = dialog
            .getByRole('button', { name: '部 署' })
            .or(dialog.getByRole('button', { name: '部署' }));
          await deploy.click();
          const refused = page.locator('.ant-message-error').filter({ hasText: 'org.example.ChargeCard' });
          await untilStill(refused);
          assert.match(await refused.innerText(), /charge（扣款）|charge \(扣款\)/);
          await page.screenshot({ path: `${screenshots}/deploy-file-refused.png` });

          await dialog.getByTestId('code-as-external').check();
          await deploy.click();
          const warned = page.locator('.ant-message-warning').filter({ hasText: '外部任务' });
          await untilStill(warned);
          assert.match(await warned.innerText(), /org\.example\.ChargeCard/);
          await page.screenshot({ path: `${screenshots}/deploy-file-external.png` });
          await dialog.waitFor({ state: 'hidden' });
          await page.getByTestId('wf-deployments').getByText('E2E 外部代码').first().waitFor();

          // A worker of the class's topic completes it; the instance ends.
          const api = await apiClient(server.url, 'admin', server.adminPassword);
          const started = await api.post<{ id: number }>('/api/activiti/processinstance/start', {
            processDefinitionKey: KEY,
            description: 'e2e',
          });
          const [task] = await api.post<{ id: number; activityId: string }[]>(
            '/api/activiti/externalTask/fetchAndLock',
            {
              workerId: 'e2e',
              maxTasks: 1,
              topics: [{ topicName: 'org.example.ChargeCard', lockDuration: 60_000 }],
            },
          );
          assert.equal(task?.activityId, 'charge');
          await api.post('/api/activiti/externalTask/complete', { id: task?.id, workerId: 'e2e' });
          const instance = await api.get<{ ended: boolean }>(
            `/api/activiti/processinstance/detail?id=${started.id}`,
          );
          assert.equal(instance.ended, true);
        } finally {
          await context.close();
        }
      },
    },
  ];
}
