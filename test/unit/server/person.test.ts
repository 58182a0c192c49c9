import { describe, expect, it } from 'vitest';
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
