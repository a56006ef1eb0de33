import { EXPRESSION_LIMITS } from '../../engine/expressions.js';

/**
 * The budgets of the work a client can make the server do: how long, how large, how deep, how
 * many steps. Each is checked where the work happens, and going past one is a clear 4xx naming
 * what was too large (or, for a running process, an incident), with the transaction rolled back.
 * On PGlite the database runs in the server's own thread, so these keep one request from
 * stalling every other user; on PostgreSQL they keep it from pinning connections.
 *
 * README ("Budgets") lists them; change a figure here and there together.
 */
export const BUDGETS = {
  webhooks: {
    /** Time one delivery may take, connection to the end of the answer. */
    requestMs: 10_000,
    /** Bytes of an answer read (the rest is not read; the connection is closed). */
    answerBytes: 64 * 1024,
    /** Characters of an answer kept in the delivery log. */
    excerptChars: 1_000,
    /** How long a failing delivery is retried (with backoff) before it fails for good. */
    retryHours: 24,
    /** First and longest wait between attempts (doubling in between). */
    firstRetryMs: 30_000,
    longestRetryMs: 2 * 60 * 60 * 1000,
    /** Webhooks of one tenant. */
    perTenant: 50,
    /** Deliveries one process posts at once (also the sockets kept open to one receiver). */
    concurrent: 8,
    /** Deliveries one claim takes (one statement to take them, one to log their outcomes). */
    batch: 200,
  },
  live: {
    /** Live-update streams (GET /api/events/stream) one session may hold open (tabs of one browser). */
    perSession: 5,
    /** Streams one user may hold open, every session together. */
    perUser: 10,
    /** Streams one server process holds open; past it a new stream is refused (429). */
    perProcess: 5_000,
    /** A comment line on every stream this often, so proxies and browsers keep it open. */
    heartbeatMs: 20_000,
    /** Events a reconnect with Last-Event-ID is sent from the outbox at most (the rest: reload). */
    resumeEvents: 500,
    /**
     * How long an event id seen missing (a lower id than one committed) is waited for: the
     * transaction that took it may still commit. Such ids ride in the stream's cursor so that a
     * reconnect asks for them too.
     */
    lateCommitMs: 60_000,
    /** Ids a stream's cursor (its SSE id, the Last-Event-ID) names at most besides the last. */
    cursorGaps: 100,
    /** Bytes a slow client may leave unread on its stream before it is closed (it reconnects). */
    backlogBytes: 1024 * 1024,
    /** How long a session's read rights on an entity are reused before they are read again. */
    rightsCacheMs: 5_000,
  },
  jobs: {
    /** Time one run of a module's job may take (and never more than its everySeconds). */
    runMs: 60_000,
  },
  workflow: {
    /** Elements (flow nodes, flows, events) a process may be executed through in one transaction. */
    stepsPerTransaction: 100,
    /** Steps an instance may take in its whole life before it stops in an incident. */
    stepsPerInstance: 100_000,
    /** Nesting of sub-processes in one BPMN file (checked by a pre-scan before the parse). */
    bpmnDepth: 20,
    /** Nesting of XML elements of any kind in one BPMN file. */
    bpmnXmlDepth: 100,
    /** Elements of one BPMN file (its diagram's shapes and edges not counted). */
    bpmnElements: 5_000,
    /** One process variable's value as JSON (what a client sends, or a service task sets). */
    variableBytes: 64 * 1024,
    /**
     * Waiting executions (and message or signal starts) one message correlation or one thrown
     * signal may reach: past it the message or signal is refused (400 wfEventBudget, nothing
     * done). Each delivery is also a step of the transaction's budget.
     */
    eventsPerCall: 100,
    /**
     * Connector and mail calls one instance may make in its life (each is a job of its own, so the
     * transaction's step budget no longer stops a loop through one): past it, an incident.
     */
    callsPerInstance: 1_000,
  },
  /**
   * Expressions of schemas (x-computed, x-rules; engine/expressions.ts): length, nesting, steps of
   * one evaluation and digits of a number. The engine's own figures, the same in the browser.
   */
  expressions: EXPRESSION_LIMITS,
  templates: {
    /**
     * Time one request's templates may take to render (off the request thread): room for the
     * default set of a few entities on a busy machine, the first time too (a cold worker compiling
     * the templates took over 5 s at a load of 10; 2 s was passed under test load before).
     */
    renderMs: 10_000,
    /** Text one rendered template may produce. */
    outputBytes: 2 * 1024 * 1024,
    /** Heap of the worker that renders templates (what a render holds while it builds its text). */
    heapMb: 128,
  },
  schemas: {
    /** Length of a `pattern`; patterns with nested quantifiers or back-references are refused. */
    patternLength: 512,
    /** Values of one `enum`. */
    enumValues: 1_000,
    /** Size of one entity or designed form schema as JSON. */
    schemaBytes: 512 * 1024,
  },
  passwords: {
    /**
     * Passwords hashed at once by one import (scrypt, 16 MiB and ~50 ms of a core each, in libuv's
     * thread pool of 4): the other pool threads stay free for other requests' file and crypto work.
     */
    hashConcurrency: 3,
  },
  import: {
    /** Import jobs one user may have running at once (each holds its file's rows and a thread). */
    jobsPerUser: 2,
    /** How long a job's progress may stay unchanged before it counts as interrupted (its process ended). */
    jobStaleMs: 10 * 60_000,
    /** An uploaded import file. */
    fileBytes: 64 * 1024 * 1024,
    /** What an .xlsx may unpack to, every part together (counted while inflating). */
    unpackedBytes: 512 * 1024 * 1024,
    /** Rows of one import (every sheet together). */
    rows: 100_000,
    /** Cells of one import. */
    cells: 10_000_000,
    /** Columns of one row (Excel's own limit, XFD). */
    columns: 16_384,
    /** Shared strings of one .xlsx. */
    sharedStrings: 1_000_000,
    /** Characters of every shared string of one .xlsx together. */
    sharedStringCharacters: 32 * 1024 * 1024,
    /** Characters of one cell (Excel's own limit). */
    cellCharacters: 32_767,
    /** Characters of every cell of one import together (a shared string counts at each use). */
    textCharacters: 64 * 1024 * 1024,
    /** Bytes of one tag, comment or CDATA section of an .xlsx part (text is streamed). */
    markupBytes: 256 * 1024,
    /** Time an .xlsx may take to read (off the request thread; the reader is stopped past it). */
    parseMs: 30_000,
    /** Heap of the thread that reads an .xlsx. */
    parserHeapMb: 256,
  },
  oidc: {
    /** Time one request to an OpenID provider (discovery, keys, token) may take. */
    requestMs: 10_000,
    /** Bytes of one answer of an OpenID provider. */
    answerBytes: 1024 * 1024,
    /** Time a sign-in at a provider may take, from the sign-in page to the provider's answer. */
    flowMinutes: 10,
  },
  reports: {
    /** Time one report-designer query may run in the database (PostgreSQL: statement_timeout). */
    queryMs: 10_000,
    /**
     * Rows one report-designer query may group on PGlite, where a query cannot be timed out (it
     * runs in the server's thread): counted first, in a bounded scan.
     */
    rows: 100_000,
  },
} as const;
