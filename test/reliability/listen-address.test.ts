import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { checkListenAddress, isLoopback, nextListenHostname } from '../../server/config/listen-address';

/**
 * Where the server may listen without a token. The production server's
 * version (a real `next start` on 0.0.0.0 that must exit with the reason)
 * is in e2e/reliability/web-surface.spec.ts.
 */

describe('listening beyond loopback requires PLANSCOPE_TOKEN', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.0.0.2', true],
    ['127.255.255.254', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.20', false],
    ['127.0.0.1.nip.io', false],
    ['127.evil.example', false],
    ['localhost.evil.example', false],
  ])('%s is loopback: %s', (hostname, loopback) => {
    expect(isLoopback(hostname)).toBe(loopback);
  });

  it('refuses a non-loopback HOSTNAME without a token, naming the fix', () => {
    expect(() => loadConfig({ HOSTNAME: '0.0.0.0' })).toThrow(ConfigError);
    expect(() => loadConfig({ HOSTNAME: '0.0.0.0' })).toThrow(/set PLANSCOPE_TOKEN/);
    expect(() => loadConfig({ HOSTNAME: '127.0.0.1.nip.io' })).toThrow(ConfigError);
    expect(loadConfig({ HOSTNAME: '0.0.0.0', PLANSCOPE_TOKEN: 'long-enough-token' }).token).toBe('long-enough-token');
    expect(loadConfig({ HOSTNAME: '127.0.0.2' }).hostname).toBe('127.0.0.2');
  });

  it('refuses a token too short to be one', () => {
    expect(() => loadConfig({ HOSTNAME: '0.0.0.0', PLANSCOPE_TOKEN: 'short' })).toThrow(/at least 8/);
  });

  it('reads the address `next start` really listens on: -H, --hostname, or every interface by default', () => {
    const next = '/app/node_modules/next/dist/bin/next';
    expect(nextListenHostname(['node', next, 'start', '-p', '3000', '-H', '127.0.0.1'])).toBe('127.0.0.1');
    expect(nextListenHostname(['node', next, 'start', '--hostname', '10.0.0.5'])).toBe('10.0.0.5');
    expect(nextListenHostname(['node', next, 'start', '--hostname=::'])).toBe('::');
    expect(nextListenHostname(['node', '/app/node_modules/.bin/next', 'start'])).toBe('0.0.0.0');
    expect(nextListenHostname(['node', next, 'build'])).toBeNull();
    expect(nextListenHostname(['node', '/app/server/cli/main.ts', 'run', 'x'])).toBeNull();
    expect(() => checkListenAddress(nextListenHostname(['node', next, 'start'])!, null, 'next start -H')).toThrow(/next start -H=0.0.0.0/);
    expect(() => checkListenAddress('0.0.0.0', 'long-enough-token', 'next start -H')).not.toThrow();
  });

  it.each([
    ['a loopback -H then every interface', ['-H', '127.0.0.1', '-H', '0.0.0.0'], '0.0.0.0'],
    ['--hostname then -H', ['--hostname', '127.0.0.1', '-H', '::'], '::'],
    ['-H then --hostname=', ['-H', '127.0.0.1', '--hostname=192.168.1.20'], '192.168.1.20'],
    ['-H glued to its value', ['-H', '127.0.0.1', '-H0.0.0.0'], '0.0.0.0'],
    ['a public address first, loopback last', ['-H', '0.0.0.0', '-H', '127.0.0.1'], '127.0.0.1'],
    ['flags after -- are not options', ['-H', '127.0.0.1', '--', '-H', '0.0.0.0'], '127.0.0.1'],
  ])('with repeated flags, checks the one Next listens on (the last): %s', (_name, flags, listening) => {
    const next = '/app/node_modules/next/dist/bin/next';
    expect(nextListenHostname(['node', next, 'start', ...flags])).toBe(listening);
  });
});
