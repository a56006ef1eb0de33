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
  },
  /**
   * Expressions of schemas (x-computed, x-rules; engine/expressions.ts): length, nesting, steps of
   * one evaluation and digits of a number. The engine's own figures, the same in the browser.
   */
  expressions: EXPRESSION_LIMITS,
  templates: {
    /** Time one code-generator template may take to render (off the request thread). */
    renderMs: 2_000,
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
  import: {
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
