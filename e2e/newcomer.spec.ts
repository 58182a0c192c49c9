import type { EvalItem } from '../lib/eval';
import { axeFindings } from './axe';
import { GOOD, TASK } from './content';
import { runEvalCli, writeSuite } from './eval-cli';
import { expect, plan, runDetail, scriptFake, settled, startApprovalRun, startRun, test } from './fixtures';
import { startFakeOllama } from '../test/support/fake-ollama';
import { createTestDatabase } from '../test/support/postgres';
import { startProductionServer } from '../test/support/server-process';

/** What a person new to the dashboard met in one walk through it, each as they see it. */

const ANSWER = { content: JSON.stringify({ claims: [GOOD] }) };
const REVIEW = { content: JSON.stringify({ reviews: [] }) };

test('a plan a person rejected reads rejected, its steps not run, in the plan card and in Steps, as the Result says, after a reload', async ({ page, request }) => {
  await scriptFake(request, { planner: [{ content: plan('README.md') }, { content: plan('src/config.ts') }], synthesizer: [ANSWER], reviewer: [REVIEW] });
  const id = await startApprovalRun(page, TASK);

  const panel = page.getByTestId('approval-panel');
  await expect(panel.getByTestId('approval-steps')).toContainText('README.md');
  await panel.getByTestId('approval-reject').click();
  await panel.getByTestId('approval-note').fill('Read src/config.ts instead');
  await panel.getByTestId('approval-submit-reject').click();
  await expect(panel.getByTestId('approval-steps')).toContainText('src/config.ts');
  await panel.getByTestId('approval-approve').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });

  const detail = await runDetail(request, id);
  expect(detail.plans.map((p) => p.ended)).toEqual(['rejected', 'accepted']);
  expect(detail.plans[0]!.steps.map((s) => s.status)).toEqual(['not_run']);

  await page.reload();
  const round1 = page.getByTestId('plan-round-1');
  await expect(round1).toHaveAttribute('data-verdict', 'rejected');
  await expect(round1.getByTestId('round-verdict')).toHaveText('rejected by local');
  await expect(round1.getByTestId('step-outcome')).toHaveAttribute('data-status', 'not_run');
  await expect(page.getByTestId('step-1-0')).toHaveAttribute('data-status', 'not_run');
  await expect(page.getByTestId('steps-round-1')).toContainText('rejected by local, nothing executed');
  await expect(page.getByTestId('plan-round-2')).toHaveAttribute('data-verdict', 'accepted');
  await expect(page.getByTestId('step-2-0')).toHaveAttribute('data-status', 'done');
});

test('a ReAct run counts turns against its own limit, on its page as on the compare page', async ({ page, request }) => {
  const id = await startRun(request, { task: TASK, model: 'offline', strategy: 'react' });
  const detail = await settled(request, id);
  const turns = detail.plans.length;
  expect(turns).toBeGreaterThan(1);

  await page.goto(`/runs/${id}`);
  const rounds = page.getByTestId('run-rounds');
  // The limit is maxRounds × maxSteps turns (2 × 4 by default), as the ReAct loop counts them.
  await expect(rounds).toHaveText(`${turns} / 8 max`);
  await expect(page.getByRole('region', { name: 'Run outcome' })).toContainText('Turns');
  await expect(page.locator('#plans')).toContainText(`${turns} turns of 8 max`);
  await expect(page.getByTestId('plan-round-1').getByRole('heading', { name: 'Turn 1' })).toBeVisible();
  await expect(page.locator('#plans')).not.toContainText('Round 1');
});

test('"Fork from here" has its visible words in its accessible name', async ({ page, request }) => {
  await scriptFake(request, { planner: [{ content: plan('src/config.ts') }], synthesizer: [ANSWER], reviewer: [REVIEW] });
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  await settled(request, id);
  await page.goto(`/runs/${id}`);
  await expect(page.getByRole('button', { name: /^Fork from here/ })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Fork from here, round 1' })).toBeVisible();
});

test('the start form clears a stale error when the task changes, says why Start is disabled, and shows the code as a detail', async ({ page }) => {
  await page.goto('/');
  const input = page.getByTestId('task-input');
  await input.fill('   ');
  await page.getByTestId('submit-run').click();
  const error = page.getByTestId('start-error');
  await expect(error).toContainText('task must not be empty');
  await expect(error.getByTestId('start-error-message')).not.toContainText('invalid_request');
  await expect(error.getByTestId('start-error-code')).toContainText('invalid_request');

  await input.fill('x'.repeat(100_000));
  await expect(error).toHaveCount(0);
  const submit = page.getByTestId('submit-run');
  await expect(submit).toBeDisabled();
  const reason = page.getByTestId('submit-disabled-reason');
  await expect(reason).toContainText('too long');
  await expect(submit).toHaveAttribute('aria-describedby', 'submit-disabled-reason');
  await expect(submit).toHaveAccessibleDescription(/too long/);

  await input.fill(TASK);
  await expect(submit).toBeEnabled();
  await expect(reason).toHaveCount(0);
});

test('an offline baseline run says it is the no-model floor, that its grounding only means the quotes exist, and points to a real model', async ({ page, request }) => {
  const id = await startRun(request, { task: TASK, model: 'offline' });
  const detail = await settled(request, id);
  expect(detail.check?.groundingScore).toBe(1);
  await page.goto(`/runs/${id}`);
  const note = page.getByTestId('baseline-note');
  await expect(note).toContainText('no-model floor');
  await expect(note).toContainText('only that the quoted lines exist');
  await expect(note.getByRole('link', { name: /real model/ })).toBeVisible();
});

test('a run that is not stored: the page names the store in use and where it is', async ({ page }) => {
  await page.goto('/runs/no-such-run');
  const card = page.getByTestId('run-not-found');
  // The e2e dashboard keeps its runs in SQLite under .e2e-data (PLANSCOPE_DATA_DIR); on PostgreSQL the card names the database.
  await expect(card).toContainText('data directory');
  await expect(card).toContainText('.e2e-data');
  await expect(card).toContainText('PLANSCOPE_DATA_DIR');
  await expect(card).not.toContainText('PostgreSQL');
});

/** A claim that rests on src/config.ts's TODO comment: supported, and flagged plan_as_fact. */
const PLAN_AS_FACT = {
  text: 'lantern loads its endpoint from ~/.config/lantern/config.toml.',
  citations: [{ path: 'src/config.ts', startLine: 23, endLine: 23, quote: 'load the endpoint from a config file' }],
};

test('the replay difference keeps the Checker\'s plan-as-fact flag, and replays are numbered by request and place in it', async ({ page, request }) => {
  await scriptFake(request, { planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: JSON.stringify({ claims: [PLAN_AS_FACT] }) }], reviewer: [REVIEW] });
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  const detail = await settled(request, id);
  expect(detail.check?.claims[0]?.flags?.[0]?.code).toBe('plan_as_fact');

  await page.goto(`/runs/${id}`);
  await scriptFake(request, { synthesizer: [{ content: JSON.stringify({ claims: [GOOD] }) }] });
  await page.getByTestId('llm-call-row').filter({ hasText: 'synthesizer#2' }).getByTestId('llm-call-replay').click();
  const panel = page.getByTestId('replay-panel');
  await panel.getByTestId('replay-repeat').fill('3');
  await panel.getByTestId('replay-send').click();
  await expect(panel.getByTestId('replay-batch')).toHaveText('3 of 3 replies validated');

  const row = panel.getByTestId('replay-diff-row');
  await expect(row).toHaveAttribute('data-change', 'changed');
  await expect(row.getByTestId('replay-diff-flag')).toHaveAttribute('data-flag', 'plan_as_fact');
  await expect(row.getByTestId('replay-diff-flag')).toHaveCount(1);
  await expect(panel.getByTestId('replay-original').getByTestId('replay-claim-flag')).toHaveAttribute('data-flag', 'plan_as_fact');

  await panel.getByTestId('replay-repeat').fill('1');
  await panel.getByTestId('replay-send').click();
  await expect(panel.getByTestId('replay-row')).toHaveCount(4);
  await expect(panel.getByTestId('replay-name')).toHaveText(['1.1', '1.2', '1.3', '2']);
  await expect(panel.getByRole('button', { name: 'Show replay 1.2, reply 2 of 3 of request 1' })).toBeVisible();
  await expect(panel.getByRole('region', { name: 'Stored replays' })).toContainText('4 in 2 requests');
});

test('Cancel asks once before it is sent, and can be taken back until then', async ({ page, request }) => {
  await scriptFake(request, { planner: [{ content: plan('src/config.ts') }], synthesizer: [{ ...ANSWER, delayMs: 20_000 }], reviewer: [REVIEW] });
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  await page.goto(`/runs/${id}`);
  await page.getByTestId('cancel-run').click();
  const confirm = page.getByRole('group', { name: 'Cancel this run?' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Keep it running' }).click();
  await expect(confirm).toHaveCount(0);
  expect((await runDetail(request, id)).status).toBe('running');
  await page.getByTestId('cancel-run').click();
  await page.getByTestId('cancel-run-confirm').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'cancelled', { timeout: 20_000 });
});

test('a fork at the answer says what it is beside the observations it carried', async ({ page, request }) => {
  const parent = await startRun(request, { task: TASK, model: 'offline' });
  await settled(request, parent);
  const id = await startRun(request, { fork: { run: parent, stage: 'answer' } });
  await settled(request, id);
  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId('run-rounds')).toHaveText('0 · forked at the answer');
  await expect(page.getByTestId('plans-empty')).toContainText(`A fork at the answer`);
  await expect(page.getByTestId('plans-empty')).toContainText(`carried from run ${parent}`);
  await expect(page.getByTestId('plans-empty')).not.toContainText('No plan was proposed');
});

test('the compare page\'s "Run this task again" says why it chose its strategy and model', async ({ page, request }) => {
  const id = await startRun(request, { task: 'Where are the default timeouts set? (compare defaults)', model: 'offline' });
  await settled(request, id);
  await page.goto(`/compare?a=${id}`);
  await expect(page.getByTestId('rerun-strategy')).toHaveValue('react');
  await expect(page.getByTestId('rerun-why')).toContainText('the other strategy (react) with run A');
  await expect(page.getByTestId('rerun-why')).toContainText('only the strategy differs');
});

test('the empty Evaluations page points to the Run button as well as the command line', async ({ page }) => {
  // A dashboard of its own, on a store of its own: the shared one holds the evaluations other specs made.
  const server = await startProductionServer({ env: { PLANSCOPE_MODEL: 'offline' } });
  try {
    await page.goto(`${server.url}/evals`);
    await expect(page.getByTestId('evals-empty')).toContainText('Run button');
  } finally {
    await server.cleanup();
  }
});

test('the runs an evaluation made carry an "evaluation" mark in the runs list and the review queue, and the list filters by it', async ({ page, request }) => {
  const task = 'Where is the model endpoint configured? (asked by an evaluation and by a person)';
  const suite = writeSuite('marked-runs', [{ id: 'marked-endpoint', category: 'lookup', task, mustState: ['OLLAMA_HOST'] }]);
  const { id: evalId, items } = await runEvalCli<{ id: string; items: EvalItem[] }>(suite, ['--model', 'offline']);
  expect(items.map((i) => i.status)).toEqual(['completed']);
  const evaluated = items[0]!.runId;
  const direct = await startRun(request, { task, model: 'offline' });
  await settled(request, direct);
  // Only this test's two runs: the shared dashboard holds other specs' evaluations.
  const mine = `q=${encodeURIComponent('asked by an evaluation and by a person')}`;

  await page.goto(`/runs?${mine}`);
  const row = (id: string) => page.locator(`tr[data-run-id="${id}"]`);
  await expect(row(direct)).toBeVisible();
  const mark = row(evaluated).getByTestId('evaluation-tag');
  await expect(mark).toHaveText('evaluation');
  await expect(mark).toHaveAttribute('title', `Run by evaluation ${evalId}, one of its suite's tasks`);
  await expect(row(direct).getByTestId('evaluation-tag')).toHaveCount(0);
  expect(await axeFindings(page)).toEqual([]);

  await page.getByLabel('Origin').selectOption({ label: 'made by an evaluation' });
  await page.waitForURL((url) => url.searchParams.get('origin') === 'evaluation');
  await expect(page.getByTestId('run-link')).toHaveCount(1);
  await expect(row(evaluated)).toBeVisible();
  await page.getByLabel('Origin').selectOption({ label: 'started on its own' });
  await page.waitForURL((url) => url.searchParams.get('origin') === 'direct');
  await expect(page.getByTestId('run-link')).toHaveCount(1);
  await expect(row(direct)).toBeVisible();

  // The review queue, narrowed by the same filter, marks the evaluation's run in its header.
  await page.goto(`/review?${mine}&origin=evaluation`);
  const reviewed = page.getByTestId('review-run');
  await expect(reviewed).toHaveAttribute('data-run-id', evaluated);
  await expect(reviewed.locator('header').getByText('evaluation', { exact: true })).toBeVisible();
  expect(await axeFindings(page)).toEqual([]);
  await page.goto(`/review?${mine}&origin=direct`);
  await expect(reviewed).toHaveAttribute('data-run-id', direct);
  await expect(reviewed.getByTestId('evaluation-tag')).toHaveCount(0);
});

test('on PostgreSQL with no worker and a dashboard that takes no runs, the setup checks say not ready, the Workers page says why, and a missing run names the database', async ({ page }) => {
  test.setTimeout(120_000);
  const database = await createTestDatabase();
  const fake = await startFakeOllama({ probe: [{ content: '{"city":"Paris","sum":5}' }] });
  const server = await startProductionServer({ env: { PLANSCOPE_DATABASE_URL: database.url, OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_WORKER: 'off' } });
  try {
    await page.goto(`${server.url}/`);
    const panel = page.getByTestId('setup-checks');
    await panel.getByRole('button', { name: 'run checks' }).click();
    await expect(panel.getByTestId('setup-checks-verdict')).toHaveText('not ready');
    const workers = panel.getByTestId('doctor-workers_available');
    await expect(workers).toHaveAttribute('data-verdict', 'fail');
    await expect(workers).toContainText('PLANSCOPE_WORKER=off: this dashboard takes no runs');

    await page.goto(`${server.url}/workers`);
    await expect(page.getByTestId('workers-empty')).toContainText('this dashboard takes none');
    await expect(page.getByTestId('workers-empty')).not.toContainText('This dashboard takes runs');

    await page.goto(`${server.url}/runs/no-such-run`);
    const card = page.getByTestId('run-not-found');
    await expect(card).toContainText('the PostgreSQL database');
    await expect(card).toContainText('PLANSCOPE_DATABASE_URL');
    await expect(card).not.toContainText('PLANSCOPE_DATA_DIR');
  } finally {
    await server.cleanup();
    await fake.close();
    await database.drop();
  }
});
