import { describe, expect, it } from 'vitest';
import { mayDecidePlans } from '../../../lib/roles';
import { loadConfig } from '../../../server/config';
import { APP_ROOT } from '../../support/harness';

describe('who a request acts as, in the verdicts people give', () => {
  it('is `local` without a token, the token\'s name with one (`token` unless PLANSCOPE_TOKEN_NAME names it)', () => {
    expect(loadConfig({}, APP_ROOT).person).toBe('local');
    // A name without a token names nobody: everyone is local.
    expect(loadConfig({ PLANSCOPE_TOKEN_NAME: 'ada' }, APP_ROOT).person).toBe('local');
    expect(loadConfig({ PLANSCOPE_TOKEN: 'a-long-secret' }, APP_ROOT).person).toBe('token');
    expect(loadConfig({ PLANSCOPE_TOKEN: 'a-long-secret', PLANSCOPE_TOKEN_NAME: ' ada ' }, APP_ROOT).person).toBe('ada');
    expect(() => loadConfig({ PLANSCOPE_TOKEN: 'a-long-secret', PLANSCOPE_TOKEN_NAME: 'x'.repeat(101) }, APP_ROOT)).toThrow(/PLANSCOPE_TOKEN_NAME/);
  });
});

describe('who may decide on plans', () => {
  it('is every operator and admin unless PLANSCOPE_APPROVERS names who; then those named and admins', () => {
    expect(loadConfig({}, APP_ROOT).approvers).toBeNull();
    const approvers = loadConfig({ PLANSCOPE_APPROVERS: ' omar, ana ,' }, APP_ROOT).approvers;
    expect(approvers).toEqual(['omar', 'ana']);
    expect(() => loadConfig({ PLANSCOPE_APPROVERS: ' , ' }, APP_ROOT)).toThrow(/PLANSCOPE_APPROVERS/);
    expect(mayDecidePlans({ person: 'nina', role: 'operator' }, null)).toBe(true);
    expect(mayDecidePlans({ person: 'nina', role: 'operator' }, approvers)).toBe(false);
    expect(mayDecidePlans({ person: 'omar', role: 'operator' }, approvers)).toBe(true);
    expect(mayDecidePlans({ person: 'omar', role: 'reviewer' }, approvers)).toBe(false);
    expect(mayDecidePlans({ person: 'root', role: 'admin' }, approvers)).toBe(true);
  });
});
