// Sends the fuzzer's requests (./fuzz.ts) to a running test server and judges the answers:
// no 5xx (nor a GraphQL INTERNAL_SERVER_ERROR), an answer within 5 s, errors in the door's own
// format, and no row written by a write the service refused. Reads run a few at a time; writes
// run one at a time with the row counts of every table taken between them, so a refused write
// that changed a count is known exactly. Every offence is collected and reported at once.
import type { Database } from '../../src/db/database.ts';
import { rowCounts } from './counts.ts';
import { mediaTypeOf, type ResponseLike } from './documentCheck.ts';
import type { Door, FuzzRequest } from './fuzz.ts';
import { restResponseProblems } from './openapi.ts';

/** The issue's hang guard: every answer within this. */
const SLOW_MS = 5_000;
/** A request still unanswered after this is given up as a hang (and reported), so the run ends. */
const ABANDON_MS = 30_000;

export interface FuzzAnswer extends ResponseLike {
  ms: number;
  /** Why no answer came (connection reset, timeout). */
  failure?: string;
}

export type OffenceClass = 'server error' | 'no answer' | `slower than ${typeof SLOW_MS} ms` | 'not the door error format' | 'refused write changed rows';

export interface Offence {
  class: OffenceClass;
  request: FuzzRequest;
  answer: FuzzAnswer;
  detail?: string;
}

export interface FuzzResult {
  answered: { request: FuzzRequest; answer: FuzzAnswer }[];
  offences: Offence[];
}

async function send(baseUrl: string, secret: string, request: FuzzRequest): Promise<FuzzAnswer> {
  const started = performance.now();
  try {
    const response = await fetch(baseUrl + request.url, {
      method: request.method,
      headers: { authorization: `Bearer ${secret}`, ...request.headers },
      // Bytes rather than a string: fetch then adds no content-type of its own (the "missing" variant).
      body: request.body === undefined ? undefined : new TextEncoder().encode(request.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(ABANDON_MS),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, ms: performance.now() - started };
  } catch (error) {
    return { status: 0, headers: new Headers(), text: '', ms: performance.now() - started, failure: String((error as Error).cause ?? error) };
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type GraphQLBody = { data?: Record<string, unknown> | null; errors?: { message?: string; extensions?: { code?: unknown } }[] };

const hasUserErrors = (value: unknown) =>
  value !== null && typeof value === 'object' && Object.values(value).some((v) => Array.isArray((v as { userErrors?: unknown })?.userErrors) && (v as { userErrors: unknown[] }).userErrors.length > 0);

/** Whether the service did what the request asked: a refused or failed write must leave every row as it was. */
function accepted(request: FuzzRequest, answer: FuzzAnswer): boolean {
  if (answer.status < 200 || answer.status >= 300) return false;
  const body = parsed(answer.text);
  if (request.door === 'v3/graphql') return !(body as GraphQLBody)?.errors?.length && !hasUserErrors((body as GraphQLBody)?.data);
  // The compat door answers an action its state refuses with 200 {"errors": ...}; SOFA a payload's userErrors with 200.
  if (request.door === 'compat') return !(body !== null && typeof body === 'object' && 'errors' in body);
  if (request.door === 'v3/rest') return !hasUserErrors({ payload: body });
  return true;
}

/** How each door answers an error; empty when this answer is one of them (or no error). */
const ERROR_FORMAT: Record<Door, (request: FuzzRequest, answer: FuzzAnswer) => string[]> = {
  // The document the service serves says, per operation, which statuses and bodies an error has.
  'v2.2': (request, answer) => (answer.status >= 400 ? restResponseProblems(request.method, request.url, answer) : []),
  'v3/rest': (_request, answer) => {
    if (answer.status < 400) return [];
    const body = parsed(answer.text) as { status?: unknown; title?: unknown; detail?: unknown } | undefined;
    const problems: string[] = [];
    if (mediaTypeOf(answer.headers) !== 'application/problem+json') problems.push(`content-type is ${answer.headers.get('content-type')}, not application/problem+json`);
    if (body?.status !== answer.status || typeof body.title !== 'string' || typeof body.detail !== 'string') problems.push('body is not a problem with this status, a title and a detail');
    return problems;
  },
  compat: (_request, answer) => {
    if (answer.status < 400) return [];
    const body = parsed(answer.text) as { error?: { code?: unknown; http_code?: unknown; message?: unknown } } | undefined;
    const ok = mediaTypeOf(answer.headers) === 'application/json' && typeof body?.error?.code === 'string' && body.error.http_code === answer.status && typeof body.error.message === 'string';
    return ok ? [] : ['not {"error": {"code", "http_code", "message"}} as application/json'];
  },
  'v3/graphql': (_request, answer) => {
    const body = parsed(answer.text) as GraphQLBody | undefined;
    if (answer.status < 400 && !body?.errors) return [];
    if (!Array.isArray(body?.errors) || body.errors.length === 0) return ['an error without errors[]'];
    return body.errors.some((e) => typeof e.extensions?.code !== 'string') ? ['an error without extensions.code'] : [];
  },
};

function judge(request: FuzzRequest, answer: FuzzAnswer): Offence[] {
  const offences: Offence[] = [];
  const offence = (cls: OffenceClass, detail?: string) => offences.push({ class: cls, request, answer, detail });
  if (answer.failure) {
    offence('no answer', answer.failure);
    return offences;
  }
  const internal = request.door === 'v3/graphql' && (parsed(answer.text) as GraphQLBody | undefined)?.errors?.some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR');
  if (answer.status >= 500 || internal) offence('server error');
  if (answer.ms > SLOW_MS) offence(`slower than ${SLOW_MS} ms`);
  const format = ERROR_FORMAT[request.door](request, answer);
  if (format.length > 0) offence('not the door error format', format.join('; '));
  return offences;
}

async function pool<T>(items: T[], concurrency: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

function countChanges(before: Record<string, number>, after: Record<string, number>): string | undefined {
  const changed = Object.keys({ ...before, ...after }).filter((table) => before[table] !== after[table]);
  return changed.length ? changed.map((table) => `${table} ${before[table] ?? 0} -> ${after[table] ?? 0}`).join(', ') : undefined;
}

/** Writes sent together between two row counts: a count of every table costs about as much as several refused writes. */
const WRITE_BATCH = 8;

/**
 * Reads first, `concurrency` at a time. Then writes, destructive ones last so the fixtures they
 * delete are there for the others, in batches of WRITE_BATCH between two row counts. When a
 * batch with refused writes changed a count (an accepted write may explain it), each refused
 * write of the batch is sent again alone between two counts to find the one that wrote.
 */
export async function runFuzz(target: { url: string; db: Database }, secret: string, requests: FuzzRequest[], concurrency: number): Promise<FuzzResult> {
  const result: FuzzResult = { answered: [], offences: [] };
  const sendAndJudge = async (request: FuzzRequest) => {
    const answer = await send(target.url, secret, request);
    result.answered.push({ request, answer });
    result.offences.push(...judge(request, answer));
    return answer;
  };
  await pool(requests.filter((r) => !r.write), concurrency, async (request) => void (await sendAndJudge(request)));

  const writes = requests.filter((r) => r.write);
  const ordered = [...writes.filter((r) => !r.destructive), ...writes.filter((r) => r.destructive)];
  let counts = await rowCounts(target.db);
  for (let start = 0; start < ordered.length; start += WRITE_BATCH) {
    const batch = ordered.slice(start, start + WRITE_BATCH);
    const refused: { request: FuzzRequest; answer: FuzzAnswer }[] = [];
    await pool(batch, concurrency, async (request) => {
      const answer = await sendAndJudge(request);
      if (!accepted(request, answer)) refused.push({ request, answer });
    });
    const after = await rowCounts(target.db);
    const changed = countChanges(counts, after);
    counts = after;
    if (!changed || refused.length === 0) continue;
    let found = false;
    for (const { request } of refused) {
      const again = await send(target.url, secret, request);
      const now = await rowCounts(target.db);
      const changes = accepted(request, again) ? undefined : countChanges(counts, now);
      if (changes) result.offences.push({ class: 'refused write changed rows', request, answer: again, detail: changes });
      found ||= changes !== undefined;
      counts = now;
    }
    if (!found && refused.length === batch.length) {
      const [first] = refused;
      const others = refused.slice(1).map((r) => `${r.request.operation} | ${r.request.variant}`).join('; ');
      result.offences.push({ ...first, class: 'refused write changed rows', detail: `${changed}, in a batch of refused writes with ${others}; none wrote when sent again alone` });
    }
  }
  return result;
}

const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length)}... (${text.length} chars)` : text);

/** One line per offender, grouped by class: method, path, variant, status, time, the first 200 characters of the body. */
export function formatOffences(offences: Offence[], total: number): string {
  const byClass = new Map<OffenceClass, Offence[]>();
  for (const o of offences) byClass.set(o.class, [...(byClass.get(o.class) ?? []), o]);
  const lines = [`${offences.length} offences in ${total} requests`];
  for (const [cls, list] of byClass) {
    lines.push('', `== ${cls} (${list.length})`);
    for (const { request, answer, detail } of list) {
      lines.push(
        `  ${request.method} ${clip(request.url, 160)} [${request.operation} | ${request.variant}] -> ${answer.status} in ${Math.round(answer.ms)} ms` +
          `${detail ? ` (${clip(detail, 300)})` : ''}: ${JSON.stringify(answer.text.slice(0, 200))}`,
      );
    }
  }
  return lines.join('\n');
}
