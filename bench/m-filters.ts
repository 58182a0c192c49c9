/**
 * 11. The runs list's filters with 10,000 runs stored, on SQLite and on
 * PostgreSQL: the first page of 50 (the store's page query as `GET
 * /api/runs?...` makes it, one row more to know whether there is a next
 * page) for each filter the list offers, a combination, the task search
 * and the review queue's question (completed, nobody's verdict yet).
 * Figures reported, the slowest against its target, nothing asserted.
 */
import os from 'node:os';
import { toRunSummary } from '../lib/api';
import type { RunFilter } from '../lib/run-filter';
import { loadConfig } from '../server/config';
import { openPgStores } from '../server/store/pg/stores';
import type { RunStore } from '../server/store/run-store';
import { openDatabase } from '../server/store/sqlite/db';
import { SqliteRunStore } from '../server/store/sqlite/run-store';
import { createTestDatabase } from '../test/support/postgres';
import { APP_ROOT, removeDir, tempDir } from './lib/paths';
import { atMost, benchArgs, info, log, writeOutput, type Figure } from './lib/report';
import { round, roundSummary, summarize } from './lib/stats';

const args = benchArgs();
const STORED_RUNS = args.quick ? 1000 : 10_000;
const REQUESTS = args.quick ? 3 : 40;
const TARGET_MS = 100;
const figures: Figure[] = [];
const details: Record<string, unknown> = {};

/** What the list is asked, by name: each filter alone, a combination, the search, and the review queue's. */
const FILTERS: Record<string, RunFilter> = {
  none: {},
  status: { status: 'failed' },
  model: { model: 'llama3.2:latest' },
  strategy: { strategy: 'react' },
  profile: { profile: 'general' },
  error: { error: 'timeout' },
  judged: { review: 'judged' },
  needsReview: { review: 'needs_review' },
  search: { q: 'endpoint' },
  searchRare: { q: '#1234)' },
  combined: { status: 'completed', model: 'qwen3:8b', strategy: 'plan-execute', review: 'needs_review', q: 'configured' },
};

const MODELS = ['qwen3:8b', 'llama3.2:latest', 'offline', 'gemma3:4b'];
const TASKS = ['How is the model endpoint configured?', 'Where are retries set?', 'What does the planner do?', 'Which files are read at start?'];

/** The i-th seeded run's row: a spread of models, statuses, strategies, profiles, error codes, verdicts and tasks. */
function seedRow(i: number, base: number) {
  const failed = i % 10 === 0;
  const cancelled = i % 37 === 0;
  const status = failed ? 'failed' : cancelled ? 'cancelled' : 'completed';
  return {
    id: `${(base + i * 1000).toString(36)}-${i.toString(16).padStart(10, '0')}`,
    createdAt: base + i * 1000,
    task: `${TASKS[i % TASKS.length]} (#${i})`,
    model: MODELS[i % MODELS.length]!,
    baseline: i % MODELS.length === 2,
    strategy: i % 5 === 0 ? 'react' : 'plan-execute',
    profile: i % 7 === 0 ? 'general' : 'file',
    status,
    errorCode: failed ? (i % 30 === 0 ? 'timeout' : 'max_rounds_exceeded') : cancelled ? 'cancelled' : null,
    humanVerdicts: i % 20 === 0 ? 1 + (i % 3) : 0,
  };
}

const INSERT_COLUMNS = 'id, created_at, task, model, baseline, workspace, strategy, profile, status, attempts, finished_at, prompt_tokens, eval_tokens, error_code, last_seq, owner_pid, human_verdicts';

function seedSqlite(db: ReturnType<typeof openDatabase>, base: number): void {
  const insert = db.prepare(`INSERT INTO runs (${INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, '/ws', ?, ?, ?, 1, ?, 1200, 300, ?, 24, 1, ?)`);
  db.transaction(() => {
    for (let i = 1; i <= STORED_RUNS; i++) {
      const r = seedRow(i, base);
      insert.run(r.id, r.createdAt, r.task, r.model, r.baseline ? 1 : 0, r.strategy, r.profile, r.status, r.createdAt + 4000, r.errorCode, r.humanVerdicts);
    }
  })();
  db.exec('ANALYZE');
}

async function seedPostgres(sql: (text: string, values?: unknown[]) => Promise<unknown>, base: number): Promise<void> {
  const rows = Array.from({ length: STORED_RUNS }, (_, i) => seedRow(i + 1, base));
  const column = <K extends keyof ReturnType<typeof seedRow>>(key: K) => rows.map((r) => r[key]);
  await sql(
    `INSERT INTO runs (${INSERT_COLUMNS})
     SELECT id, created_at, task, model, baseline, '/ws', strategy, profile, status, 1, created_at + 4000, 1200, 300, error_code, 24, 1, human_verdicts
     FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::boolean[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[])
       AS t(id, created_at, task, model, baseline, strategy, profile, status, error_code, human_verdicts)`,
    [column('id'), column('createdAt'), column('task'), column('model'), column('baseline'), column('strategy'), column('profile'), column('status'), column('errorCode'), column('humanVerdicts')],
  );
  await sql('ANALYZE runs');
}

async function measure(label: 'SQLite' | 'PostgreSQL', store: RunStore): Promise<void> {
  const key = label === 'SQLite' ? 'sqlite' : 'pg';
  const medians: Record<string, number> = {};
  const found: Record<string, number> = {};
  for (const [name, filter] of Object.entries(FILTERS)) {
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      const rows = await store.listRuns({ limit: 51, filter });
      rows.map(toRunSummary);
      times.push(performance.now() - started);
      found[name] = rows.length;
    }
    medians[name] = round(summarize(times).median, 2);
    details[`${key}.${name}`] = roundSummary(summarize(times));
  }
  const slowest = Object.entries(medians).sort((a, b) => b[1] - a[1])[0]!;
  figures.push(atMost(`filters.${key}.slowest`, `Runs list, first page of 50 under the slowest filter (${slowest[0]}), ${STORED_RUNS} runs in ${label} (median)`, slowest[1], TARGET_MS, 'ms'));
  figures.push(info(`filters.${key}.none`, `Same, no filter (median)`, medians.none!, 'ms'));
  figures.push(info(`filters.${key}.needs_review`, `Same, needs review (completed, no human verdict) (median)`, medians.needsReview!, 'ms'));
  figures.push(info(`filters.${key}.search`, `Same, task search, a word in a quarter of the tasks (median)`, medians.search!, 'ms'));
  figures.push(info(`filters.${key}.search_rare`, `Same, task search matching one run (reads every row) (median)`, medians.searchRare!, 'ms'));
  figures.push(info(`filters.${key}.combined`, `Same, five filters at once (median)`, medians.combined!, 'ms'));
  details[`${key}.rowsFound`] = found;
}

const base = Date.now() - STORED_RUNS * 1000;
const sqliteDir = tempDir('filters-sqlite');
const sqliteDb = openDatabase(sqliteDir);
const database = await createTestDatabase();
try {
  let started = performance.now();
  seedSqlite(sqliteDb, base);
  log(`seeded ${STORED_RUNS} runs in SQLite in ${Math.round(performance.now() - started)} ms`);
  await measure('SQLite', new SqliteRunStore(sqliteDb));

  const pg = openPgStores(loadConfig({ PLANSCOPE_DATABASE_URL: database.url }, APP_ROOT).database!);
  try {
    await pg.ready;
    started = performance.now();
    await seedPostgres((text, values) => database.sql(text, values), base);
    log(`seeded ${STORED_RUNS} runs in PostgreSQL in ${Math.round(performance.now() - started)} ms`);
    await measure('PostgreSQL', pg.runs);
  } finally {
    await pg.close();
  }
} finally {
  sqliteDb.close();
  removeDir(sqliteDir);
  await database.drop();
}
details.machine = { cores: os.cpus().length, storedRuns: STORED_RUNS, requestsPerFilter: REQUESTS };
writeOutput(args, { name: 'filters', figures, details });
