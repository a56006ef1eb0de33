import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ErrorObject } from 'ajv';
import { EntityInputError, toFieldErrors, type FieldError } from '../../engine/index.js';
import { translatorFor, type Translate } from './i18n.js';
import { ImportBudgetError, type ImportBudget } from './xlsx/budget.js';

/**
 * The one error catalogue of the API: a stable code, the HTTP status and the i18n key of the
 * message (locales/<lang>.json, "errors.<key>").
 */
export const ERRORS = {
  validation: { status: 400, key: 'validation' },
  badJson: { status: 400, key: 'badJson' },
  badCredentials: { status: 400, key: 'badCredentials' },
  accountDisabled: { status: 400, key: 'accountDisabled' },
  unsupportedGrant: { status: 400, key: 'unsupportedGrant' },
  invalidGrant: { status: 400, key: 'invalidGrant' },
  captchaInvalid: { status: 400, key: 'captchaInvalid' },
  smsCodeInvalid: { status: 400, key: 'smsCodeInvalid' },
  resetCodeInvalid: { status: 400, key: 'resetCodeInvalid' },
  mobileNotRegistered: { status: 400, key: 'mobileNotRegistered' },
  // Two-factor (features/twofactor): a wrong code, a sign-in challenge unknown, used or expired.
  twoFactorCodeInvalid: { status: 400, key: 'twoFactorCodeInvalid' },
  twoFactorChallengeInvalid: { status: 400, key: 'twoFactorChallengeInvalid' },
  twoFactorNotStarted: { status: 409, key: 'twoFactorNotStarted' },
  fileMissing: { status: 400, key: 'fileMissing' },
  fileEmpty: { status: 400, key: 'fileEmpty' },
  invalidClient: { status: 401, key: 'invalidClient' },
  invalidToken: { status: 401, key: 'invalidToken' },
  // API keys (features/apikeys): a key that no longer works, or used from an address it does not allow.
  apiKeyRevoked: { status: 401, key: 'apiKeyRevoked' },
  apiKeyExpired: { status: 401, key: 'apiKeyExpired' },
  apiKeyAddress: { status: 401, key: 'apiKeyAddress' },
  forbidden: { status: 403, key: 'forbidden' },
  roleNotHeld: { status: 403, key: 'roleNotHeld' },
  postNotHeld: { status: 403, key: 'postNotHeld' },
  platformOnly: { status: 403, key: 'platformOnly' },
  apiKeySessionOnly: { status: 403, key: 'apiKeySessionOnly' },
  fieldNotWritable: { status: 403, key: 'fieldNotWritable' },
  outsideScope: { status: 403, key: 'outsideScope' },
  // Approval of records (x-entity.workflow, features/workflow/services/records.ts).
  recordFieldLocked: { status: 403, key: 'recordFieldLocked' },
  recordUnderApproval: { status: 409, key: 'recordUnderApproval' },
  recordApproved: { status: 409, key: 'recordApproved' },
  approvalNoProcess: { status: 409, key: 'approvalNoProcess' },
  notFound: { status: 404, key: 'notFound' },
  routeNotFound: { status: 404, key: 'routeNotFound' },
  uniqueClash: { status: 409, key: 'uniqueClash' },
  staleVersion: { status: 409, key: 'staleVersion' },
  referenced: { status: 409, key: 'referenced' },
  hasChildren: { status: 409, key: 'hasChildren' },
  // Recycle bin and versions (features/crud/services/recycle.ts) --------------------------------
  notInRecycleBin: { status: 404, key: 'notInRecycleBin' },
  inRecycleBin: { status: 409, key: 'inRecycleBin' },
  versionNotFound: { status: 404, key: 'versionNotFound' },
  versionInvalid: { status: 400, key: 'versionInvalid' },
  tooLarge: { status: 413, key: 'tooLarge' },
  fileTooLarge: { status: 413, key: 'fileTooLarge' },
  netdiscQuotaExceeded: { status: 413, key: 'netdiscQuotaExceeded' },
  unsupportedMediaType: { status: 415, key: 'unsupportedMediaType' },
  eventStreamOnly: { status: 406, key: 'eventStreamOnly' },
  notMultipart: { status: 415, key: 'notMultipart' },
  rangeNotSatisfiable: { status: 416, key: 'rangeNotSatisfiable' },
  fileTypeImage: { status: 415, key: 'fileTypeImage' },
  fileTypeRefused: { status: 415, key: 'fileTypeRefused' },
  rateLimited: { status: 429, key: 'rateLimited' },
  liveStreamsExceeded: { status: 429, key: 'liveStreamsExceeded' },
  accountLocked: { status: 429, key: 'accountLocked' },
  smsTooSoon: { status: 429, key: 'smsTooSoon' },
  smsDailyLimit: { status: 429, key: 'smsDailyLimit' },
  // Workflow (services/workflow) --------------------------------------------------------------
  wfBadProcess: { status: 400, key: 'workflow.badProcess' },
  wfModelEmpty: { status: 400, key: 'workflow.modelEmpty' },
  wfUnknownForm: { status: 400, key: 'workflow.unknownForm' },
  wfProcessTooDeep: { status: 400, key: 'workflow.processTooDeep' },
  wfProcessXmlTooDeep: { status: 400, key: 'workflow.processXmlTooDeep' },
  wfProcessTooLarge: { status: 400, key: 'workflow.processTooLarge' },
  wfStepBudget: { status: 400, key: 'workflow.stepBudget' },
  wfNoFlow: { status: 400, key: 'workflow.noFlow' },
  wfConditionUnset: { status: 400, key: 'workflow.conditionUnset' },
  wfConditionFailed: { status: 400, key: 'workflow.conditionFailed' },
  wfRetryUnset: { status: 400, key: 'workflow.retryUnset' },
  wfRetryFailed: { status: 400, key: 'workflow.retryFailed' },
  wfVariablesUnset: { status: 400, key: 'workflow.variablesUnset' },
  wfVariablesFailed: { status: 400, key: 'workflow.variablesFailed' },
  wfNoIncident: { status: 409, key: 'workflow.noIncident' },
  wfMessageNoMatch: { status: 404, key: 'workflow.messageNoMatch' },
  wfMessageAmbiguous: { status: 409, key: 'workflow.messageAmbiguous' },
  wfEventBudget: { status: 400, key: 'workflow.eventBudget' },
  // External tasks: another worker holds the lock (or none does), or the task is no longer open.
  wfExternalLocked: { status: 409, key: 'workflow.externalLocked' },
  wfExternalGone: { status: 404, key: 'workflow.externalGone' },
  wfVariableTooLarge: { status: 400, key: 'workflow.variableTooLarge' },
  wfNotCandidate: { status: 403, key: 'workflow.notCandidate' },
  wfNotAssignee: { status: 403, key: 'workflow.notAssignee' },
  wfNotCandidateStarter: { status: 403, key: 'workflow.notCandidateStarter' },
  wfDefinitionSuspended: { status: 409, key: 'workflow.definitionSuspended' },
  wfInstanceSuspended: { status: 409, key: 'workflow.instanceSuspended' },
  wfInstanceEnded: { status: 409, key: 'workflow.instanceEnded' },
  wfDeploymentInUse: { status: 409, key: 'workflow.deploymentInUse' },
  wfTaskClaimed: { status: 409, key: 'workflow.taskClaimed' },
  wfTaskDone: { status: 409, key: 'workflow.taskDone' },
  wfTaskDelegated: { status: 409, key: 'workflow.taskDelegated' },
  wfTaskNotDelegated: { status: 409, key: 'workflow.taskNotDelegated' },
  wfTaskWaiting: { status: 409, key: 'workflow.taskWaiting' },
  wfTaskIsSign: { status: 409, key: 'workflow.taskIsSign' },
  wfModelKeyExists: { status: 409, key: 'workflow.modelKeyExists' },
  wfDefinitionInUse: { status: 409, key: 'workflow.definitionInUse' },
  wfInstanceRunning: { status: 409, key: 'workflow.instanceRunning' },
  wfTaskOpen: { status: 409, key: 'workflow.taskOpen' },
  // Designed forms (services/forms) -------------------------------------------------------------
  formUnsafeChange: { status: 409, key: 'forms.unsafeChange' },
  formPublished: { status: 409, key: 'forms.published' },
  // Code generator (services/generator) ------------------------------------------------------
  tableAdopted: { status: 409, key: 'codegen.tableAdopted' },
  wfNotStarter: { status: 403, key: 'workflow.notStarter' },
  wfWithdrawLate: { status: 409, key: 'workflow.withdrawLate' },
  // Import (features/crud/import/import.ts) ----------------------------------------------------------
  importRejected: { status: 400, key: 'import.rejected' },
  importTooLarge: { status: 413, key: 'import.tooLarge' },
  // Budgets of templates, schemas and reports (lib/budgets.ts): params budget and limit ----------
  templateBudget: { status: 422, key: 'budgets.templateBudget' },
  schemaBudget: { status: 400, key: 'budgets.schemaBudget' },
  reportBudget: { status: 422, key: 'budgets.reportBudget' },
  // OpenID Connect sign-in (features/oidc) ------------------------------------------------------
  oidcIssuerRefused: { status: 400, key: 'oidc.issuerRefused' },
  oidcStateInvalid: { status: 400, key: 'oidc.stateInvalid' },
  oidcAnswerInvalid: { status: 400, key: 'oidc.answerInvalid' },
  oidcTicketInvalid: { status: 400, key: 'oidc.ticketInvalid' },
  oidcUnknownUser: { status: 403, key: 'oidc.unknownUser' },
  oidcLinkedElsewhere: { status: 409, key: 'oidc.linkedElsewhere' },
  oidcProviderFailed: { status: 502, key: 'oidc.providerFailed' },
  internal: { status: 500, key: 'internal' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly params: Record<string, unknown>;
  readonly errors: FieldError[] | undefined;

  constructor(code: ErrorCode, params: Record<string, unknown> = {}, errors?: FieldError[]) {
    super(`${code}${Object.keys(params).length > 0 ? ` ${JSON.stringify(params)}` : ''}`);
    this.name = 'AppError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.params = params;
    this.errors = errors;
  }
}

export interface ErrorBody {
  code: number;
  message: string;
  error?: string;
  errors?: FieldError[];
}

/** Fastify's own 4xx errors, mapped onto the catalogue. */
function fromFastifyError(error: FastifyError, t: Translate): AppError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('tooLarge');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupportedMediaType');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('badJson');
    default:
      break;
  }
  if (error.validation) {
    // A route schema refused the input: the same field pointers and messages as entity forms.
    const errors = toFieldErrors(error.validation as ErrorObject[], t);
    if (error.validationContext === 'body') return new AppError('validation', {}, errors);
    // A query parameter is named as a whole (/id, not /id/1 for its second repeat).
    const byParameter = new Map<string, FieldError>();
    for (const item of errors) {
      const field = `/${item.field.split('/')[1] ?? ''}`;
      if (!byParameter.has(field)) byParameter.set(field, { ...item, field });
    }
    return new AppError('validation', {}, [...byParameter.values()]);
  }
  if (error instanceof SyntaxError) return new AppError('badJson');
  // PostgreSQL "data exception" (class 22): a value the checks let through but the database refuses.
  const sqlState = (error as { code?: unknown }).code;
  // The database's own text never reaches a client.
  if (typeof sqlState === 'string' && /^22[0-9A-Z]{3}$/.test(sqlState)) {
    return new AppError('validation', {}, [{ field: '/', message: t('validation.invalid') }]);
  }
  const status = error.statusCode ?? 500;
  if (status === 429) return new AppError('rateLimited');
  if (status === 413) return new AppError('tooLarge');
  if (status === 415) return new AppError('unsupportedMediaType');
  if (status >= 400 && status < 500)
    return new AppError('validation', {}, [{ field: '/', message: error.message }]);
  return undefined;
}

export function errorBody(error: AppError, request: FastifyRequest): ErrorBody {
  const t = translatorFor(request);
  const body: ErrorBody = {
    code: error.status,
    message: t(`errors.${ERRORS[error.code].key}`, error.params),
  };
  if (
    error.code === 'invalidToken' ||
    error.code === 'apiKeyRevoked' ||
    error.code === 'apiKeyExpired' ||
    error.code === 'apiKeyAddress'
  )
    body.error = 'invalid_token';
  if (error.errors) body.errors = error.errors;
  else if (error.status === 400 || error.status === 409) body.errors = [];
  return body;
}

/** The limit of an import budget in the unit its text names (MB, KB, s or a count). */
function budgetLimit(budget: ImportBudget, limit: number): string {
  switch (budget) {
    case 'unpackedBytes':
      return String(Math.round(limit / (1024 * 1024)));
    case 'markupBytes':
      return String(Math.round(limit / 1024));
    case 'parseMs':
      return String(Math.round(limit / 1000));
    default:
      return String(limit);
  }
}

/** An import past one of its budgets: a 413 naming the budget, on the part "file". */
function importBudgetError(error: ImportBudgetError, t: Translate): AppError {
  const what = t(`import.budget.${error.budget}`, { limit: budgetLimit(error.budget, error.limit) });
  return new AppError('importTooLarge', { what }, [{ field: '/file', message: what }]);
}

/** The catalogue's error for what a request raised; undefined for one it does not know (a 500). */
export function catalogueErrorOf(raw: FastifyError | Error, request: FastifyRequest): AppError | undefined {
  if (raw instanceof AppError) return raw;
  if (raw instanceof EntityInputError) return new AppError('validation', {}, raw.errors);
  if (raw instanceof ImportBudgetError) return importBudgetError(raw, translatorFor(request));
  return fromFastifyError(raw as FastifyError, translatorFor(request));
}

async function errorsPlugin(app: FastifyInstance): Promise<void> {
  app.setErrorHandler((raw: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    let error = catalogueErrorOf(raw, request);
    if (!error) {
      request.log.error({ err: raw }, 'unhandled error');
      error = new AppError('internal');
    }
    void reply.status(error.status).send(errorBody(error, request));
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new AppError('routeNotFound', { path: request.url.split('?')[0] ?? '' });
    void reply.status(404).send(errorBody(error, request));
  });
}

export const errorsHandler = fp(errorsPlugin, { name: 'errors' });
