import { describe, expect, it } from 'vitest';
import { validatePlan } from '../../../lib/validator';

const planOf = (...paths: string[]) => ({ steps: paths.map((path) => ({ purpose: 'Read it', path })) });

/** One path per row: what the Validator makes of it inside a plan. */
const CASES: [string, string | null][] = [
  ['src/config.ts', null],
  ['./src/config.ts', null],
  ['src/./config.ts', null],
  ['src/../README.md', null],
  ['docs/architecture.md', null],
  ['README.md', null],
  ['src/a b.ts', null],
  ['src/ünïcode.ts', null],
  ['.env', 'path_denied'],
  ['.env.local', 'path_denied'],
  ['.ENV.local', 'path_denied'],
  ['config/.env.production', 'path_denied'],
  ['.env.', 'path_denied'],
  ['certs/server.pem', 'path_denied'],
  ['certs/server.PEM', 'path_denied'],
  ['keys/private.key', 'path_denied'],
  ['home/.ssh/id_rsa', 'path_denied'],
  ['id_rsa.pub', 'path_denied'],
  ['.git/config', 'path_denied'],
  ['.GIT/HEAD', 'path_denied'],
  ['.npmrc', 'path_denied'],
  ['../outside.ts', 'path_outside_workspace'],
  ['src/../../outside.ts', 'path_outside_workspace'],
  ['/etc/passwd', 'path_outside_workspace'],
  ['~/secrets.txt', 'path_outside_workspace'],
  ['C:\\Windows\\win.ini', 'path_outside_workspace'],
  ['src\\..\\..\\x', 'path_outside_workspace'],
  ['%2e%2e/etc/passwd', 'path_outside_workspace'],
  ['src/%2E%2E/%2e%2e/x', 'path_outside_workspace'],
  ['src/config.ts\u0000.md', 'path_outside_workspace'],
  ['src/\nconfig.ts', 'path_outside_workspace'],
  ['\uff0e\uff0e/etc/passwd', 'path_outside_workspace'],
  ['src/*.ts', 'unsupported_step'],
  ['src/', 'unsupported_step'],
  ['src/{a,b}.ts', 'unsupported_step'],
];

describe('the Validator, one path at a time', () => {
  it.each(CASES)('%j -> %s', (path, code) => {
    const verdict = validatePlan(planOf(path));
    expect(verdict.rejections.map((r) => r.code)).toEqual(code ? [code] : []);
  });

  it('has at least 30 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(30));
});

describe('the Validator, whole plans', () => {
  it('normalises paths in the accepted steps', () => {
    expect(validatePlan(planOf('./src/config.ts', 'src/../README.md')).steps.map((s) => s.path)).toEqual([
      'src/config.ts',
      'README.md',
    ]);
  });

  it.each([
    ['a.ts', './a.ts'],
    ['a.ts', 'src/../a.ts'],
    ['src/config.ts', 'src//config.ts'],
  ])('treats %s and %s as one path', (first, second) => {
    const verdict = validatePlan(planOf(first, second));
    expect(verdict.rejections).toEqual([expect.objectContaining({ step: 1, code: 'duplicate_path' })]);
  });

  it('reports every offending step, each with its index', () => {
    const verdict = validatePlan(planOf('src/config.ts', '.env.local', '../x', 'src/config.ts'));
    expect(verdict.rejections.map((r) => [r.step, r.code])).toEqual([
      [1, 'path_denied'],
      [2, 'path_outside_workspace'],
      [3, 'duplicate_path'],
    ]);
  });

  it('judges policy, not existence: a missing file passes', () => {
    expect(validatePlan(planOf('src/does-not-exist.ts')).rejections).toEqual([]);
  });
});
