import { describe, expect, it } from 'vitest';
import { WaitReason } from '../../../lib/codes';
import { queueWaiting, reachesWorkspace, sameModel, servedModels, WorkerRecord, workerState, withTag } from '../../../lib/worker';

const NOW = 1_700_000_100_000;
const LOST_AFTER = 10_000;

function worker(overrides: Partial<WorkerRecord> = {}): WorkerRecord {
  return WorkerRecord.parse({
    id: 'w1',
    host: 'box-a',
    pid: 100,
    startedAt: NOW - 60_000,
    lastBeatAt: NOW - 1000,
    stoppedAt: null,
    concurrency: 4,
    hosts: [{ host: 'http://127.0.0.1:11434', models: ['qwen3:8b', 'llama3.2'], reachable: true }],
    workspaceRoots: ['/srv/repos'],
    ...overrides,
  });
}

describe('a worker record', () => {
  it('parses without the optional parts: not given up for lost, no runs reported', () => {
    const record = worker();
    expect(record.lostAt).toBeNull();
    expect(record.runs).toBeUndefined();
    expect(WorkerRecord.safeParse({ ...record, concurrency: 0 }).success).toBe(false);
  });
});

describe('workerState', () => {
  it('is live while the last heartbeat is within the window, lost past it', () => {
    expect(workerState(worker({ lastBeatAt: NOW - LOST_AFTER }), NOW, LOST_AFTER)).toBe('live');
    expect(workerState(worker({ lastBeatAt: NOW - LOST_AFTER - 1 }), NOW, LOST_AFTER)).toBe('lost');
  });

  it('is lost once a sweeper gave it up, even if it beat again since', () => {
    expect(workerState(worker({ lostAt: NOW - 5000, lastBeatAt: NOW }), NOW, LOST_AFTER)).toBe('lost');
  });

  it('is stopped when it said so, however old its heartbeat', () => {
    expect(workerState(worker({ stoppedAt: NOW - 100_000, lastBeatAt: NOW - 100_000 }), NOW, LOST_AFTER)).toBe('stopped');
    expect(workerState(worker({ stoppedAt: NOW, lostAt: NOW }), NOW, LOST_AFTER)).toBe('stopped');
  });
});

describe('model names', () => {
  it('withTag adds :latest to a name without a tag, and leaves a tagged one', () => {
    expect(withTag('qwen3')).toBe('qwen3:latest');
    expect(withTag('qwen3:8b')).toBe('qwen3:8b');
    expect(withTag('hf.co/org/model:Q4_K_M')).toBe('hf.co/org/model:Q4_K_M');
    // A registry's port is not a tag.
    expect(withTag('registry.local:5000/team/model')).toBe('registry.local:5000/team/model:latest');
  });

  it('sameModel compares with the default tag filled in', () => {
    expect(sameModel('llama3.2', 'llama3.2:latest')).toBe(true);
    expect(sameModel('llama3.2:latest', 'llama3.2')).toBe(true);
    expect(sameModel('qwen3:8b', 'qwen3')).toBe(false);
    expect(sameModel('qwen3:8b', 'qwen3:14b')).toBe(false);
  });
});

describe('servedModels', () => {
  it('is the offline baseline and the models of every reachable host, each once', () => {
    const record = worker({
      hosts: [
        { host: 'http://a:11434', models: ['qwen3:8b', 'llama3.2:latest'], reachable: true },
        { host: 'http://b:11434', models: ['llama3.2', 'gemma3:4b'], reachable: true },
        { host: 'http://c:11434', models: ['mistral:7b'], reachable: false },
      ],
    });
    expect(servedModels(record)).toEqual(['offline', 'qwen3:8b', 'llama3.2:latest', 'gemma3:4b']);
  });

  it('is the offline baseline alone when no host answered', () => {
    expect(servedModels(worker({ hosts: [{ host: 'http://a:11434', models: [], reachable: false }] }))).toEqual(['offline']);
  });
});

describe('reachesWorkspace', () => {
  it('takes the root itself and what lies inside it, not a sibling sharing its prefix', () => {
    expect(reachesWorkspace('/srv/repos', '/srv/repos')).toBe(true);
    expect(reachesWorkspace('/srv/repos', '/srv/repos/lantern')).toBe(true);
    expect(reachesWorkspace('/srv/repos', '/srv/repos-old/lantern')).toBe(false);
    expect(reachesWorkspace('/', '/anything/at/all')).toBe(true);
  });
});

describe('queueWaiting', () => {
  const run = { model: 'llama3.2', workspace: '/srv/repos/lantern' };

  it('is null when a live worker serves the model and reaches the workspace', () => {
    expect(queueWaiting([worker()], run, NOW, LOST_AFTER)).toBeNull();
    expect(queueWaiting([worker()], { model: 'offline', workspace: '/srv/repos' }, NOW, LOST_AFTER)).toBeNull();
  });

  it('says no_worker when no worker is live: none registered, stopped, or silent past the window', () => {
    for (const workers of [[], [worker({ stoppedAt: NOW - 1 })], [worker({ lastBeatAt: NOW - LOST_AFTER - 1 })]]) {
      const wait = queueWaiting(workers, run, NOW, LOST_AFTER);
      expect(wait?.reason).toBe('no_worker');
      expect(wait?.message).toContain('10 s');
    }
  });

  it('says no_worker_for_model, naming the model and what the live workers serve', () => {
    const wait = queueWaiting([worker(), worker({ id: 'w2', hosts: [{ host: 'http://b:11434', models: ['gemma3:4b'], reachable: true }] })], { ...run, model: 'mistral:7b' }, NOW, LOST_AFTER);
    expect(wait?.reason).toBe('no_worker_for_model');
    expect(wait?.message).toContain('mistral:7b');
    expect(wait?.message).toContain('gemma3:4b');
  });

  it('does not count a lost worker that has the model, nor an unreachable host', () => {
    const lostWithModel = worker({ id: 'w2', lastBeatAt: NOW - LOST_AFTER - 1, hosts: [{ host: 'http://b:11434', models: ['mistral:7b'], reachable: true }] });
    const unreachable = worker({ id: 'w3', hosts: [{ host: 'http://c:11434', models: ['mistral:7b'], reachable: false }] });
    expect(queueWaiting([worker(), lostWithModel, unreachable], { ...run, model: 'mistral:7b' }, NOW, LOST_AFTER)?.reason).toBe('no_worker_for_model');
  });

  it('says no_worker_for_workspace when the workers with the model cannot reach it, naming the workspace and their roots', () => {
    const elsewhere = worker({ id: 'w2', hosts: [], workspaceRoots: ['/home/ada'] });
    const wait = queueWaiting([worker(), elsewhere], { ...run, workspace: '/home/ada/notes' }, NOW, LOST_AFTER);
    expect(wait?.reason).toBe('no_worker_for_workspace');
    expect(wait?.message).toContain('/home/ada/notes');
    expect(wait?.message).toContain('/srv/repos');
    expect(wait?.message).not.toContain('/home/ada,');
  });

  it('gives only reasons lib/codes.ts defines', () => {
    for (const reason of ['no_worker', 'no_worker_for_model', 'no_worker_for_workspace']) expect(WaitReason.safeParse(reason).success).toBe(true);
  });
});
