import { describe, expect, it } from 'vitest';
import { maskHost, maskSecret, maskUrlsInText } from '../../../lib/mask';

describe('maskHost', () => {
  it('leaves a host without credentials exactly as given', () => {
    for (const host of [
      'http://127.0.0.1:11434',
      'http://localhost:11434/',
      'https://ollama.example.com/prefix/path?x=1#top',
      'localhost:11434',
      ':11434',
      'http://[::1]:11434',
      'http://host:11434/path/@notcreds',
      '',
    ]) {
      expect(maskHost(host)).toBe(host);
    }
  });

  it('masks a password and a user name whole, whatever their length', () => {
    expect(maskHost('http://bob:s3cretpw@host:11434')).toBe('http://****:****@host:11434');
  });

  it('masks a long user name the same way as a password', () => {
    expect(maskHost('https://deploybot:averylongpassword@ollama.internal/api')).toBe(
      'https://****:****@ollama.internal/api',
    );
  });

  it('masks a lone token in the user-info', () => {
    expect(maskHost('https://sk-abcdef123456@proxy.example.com')).toBe('https://****@proxy.example.com');
  });

  it('masks short credentials whole, leaking neither content nor length', () => {
    expect(maskHost('http://a:b@host:1')).toBe('http://****:****@host:1');
    expect(maskHost('http://alice:pw@host:1')).toBe('http://****:****@host:1');
  });

  it('keeps an empty user name empty', () => {
    expect(maskHost('http://:supersecret@host:11434')).toBe('http://:****@host:11434');
  });

  it('treats a password containing "@" as part of the user-info', () => {
    expect(maskHost('http://bob:p@ss@word99@host:11434')).toBe('http://****:****@host:11434');
  });

  it('masks credentials given without a scheme', () => {
    expect(maskHost('bob:s3cretpw@host:11434')).toBe('****:****@host:11434');
  });

  it('masks credential-like query parameters', () => {
    expect(maskHost('https://host/ollama?api_key=abcdefgh1234&model=x&token=tok')).toBe(
      'https://host/ollama?api_key=****&model=x&token=****',
    );
  });

  it('never throws and still hides secrets in malformed input', () => {
    // The unescaped "/" would end the authority; the password must not leak anyway.
    const masked = maskHost('http://bob:pa/ssword1@host:11434');
    expect(masked).not.toContain('pa/ss');
    expect(masked).toContain('host:11434');
    expect(() => maskHost('http://%%%:@@@/??##')).not.toThrow();
    expect(maskHost(undefined as unknown as string)).toBe('');
  });
});

describe('maskSecret', () => {
  it.each(['1', '1234567', '12345678', 'a-long-password-99', 'x'.repeat(500)])('masks %s whole: no character and not its length', (secret) => {
    const masked = maskSecret(secret);
    expect(masked).toBe('****');
    for (const tail of [secret.slice(-1), secret.slice(-4)]) if (!tail.includes('*')) expect(masked).not.toContain(tail);
  });

  it('leaves an empty credential empty', () => {
    expect(maskSecret('')).toBe('');
  });
});

describe('maskUrlsInText', () => {
  it('masks the credentials of every URL in free text and leaves the rest as it was', () => {
    const text = [
      "export const MIRROR = 'https://deploy:hunter2-mirror-password@ollama.example.com:11434';",
      'See https://example.com/docs and postgres://app:s3cret-db-pass@db:5432/app?sslmode=require.',
      'No URL here: user:password@host is not one.',
    ].join('\n');
    expect(maskUrlsInText(text)).toBe(
      [
        "export const MIRROR = 'https://****:****@ollama.example.com:11434';",
        'See https://example.com/docs and postgres://****:****@db:5432/app?sslmode=require.',
        'No URL here: user:password@host is not one.',
      ].join('\n'),
    );
  });

  it('masks credential-like query parameters too', () => {
    expect(maskUrlsInText('GET http://h/api?token=abcdefghijkl&x=1 failed')).toBe('GET http://h/api?token=****&x=1 failed');
  });
});
