import fc from 'fast-check';
import { checkedAddress, isPublicAddress, parseWebhookUrl, WebhookInputError } from './webhook-target.js';

describe('webhook targets (SSRF)', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '100.64.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://[::ffff:7f00:1]/', '[::ffff:7f00:1]'],
  ])('reads the IP forms the WHATWG parser normalises: %s is %s', async (raw, host) => {
    const url = parseWebhookUrl(raw);
    expect(url.hostname).toBe(host);
    await expect(checkedAddress(url, false)).rejects.toThrow(/non-public address/);
  });

  it('refuses a host name that resolves to loopback, unless private targets are allowed', async () => {
    await expect(checkedAddress(parseWebhookUrl('http://localhost/'), false)).rejects.toThrow(WebhookInputError);
    await expect(checkedAddress(parseWebhookUrl('http://localhost/'), true)).resolves.toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
  });

  it.each([
    ['ftp://example.com/', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['http://user:pw@example.com/', /user name or password/],
    ['http://user@example.com/', /user name or password/],
    ['example.com/hooks', /absolute/],
    [`https://example.com/${'x'.repeat(2048)}`, /at most 2048/],
  ])('refuses the URL %s', (raw, message) => {
    expect(() => parseWebhookUrl(raw)).toThrow(message);
  });
});

describe('webhook URLs, fuzzed', () => {
  const urlish = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.tuple(fc.constantFrom('http://', 'https://', 'ftp://', 'HTTP://', 'http:/', '//', 'javascript:'), fc.string({ maxLength: 40 })).map(([a, b]) => a + b),
  );

  it('either accepts an http(s) URL without credentials or refuses with a WebhookInputError, nothing else', () => {
    fc.assert(
      fc.property(urlish, (raw) => {
        let url: URL;
        try {
          url = parseWebhookUrl(raw);
        } catch (error) {
          expect(error).toBeInstanceOf(WebhookInputError);
          return;
        }
        expect(['http:', 'https:']).toContain(url.protocol);
        expect(url.username + url.password).toBe('');
        expect(url.hostname).not.toBe('');
      }),
      { numRuns: 2000 },
    );
  });

  it('judges every IPv4 address without throwing, and never calls a private one public', () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        const [a, b] = address.split('.').map(Number);
        const isPrivate = a === 10 || a === 127 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
        if (isPrivate) expect(isPublicAddress(address)).toBe(false);
        expect(isPublicAddress(`::ffff:${address}`)).toBe(isPublicAddress(address));
      }),
      { numRuns: 5000 },
    );
  });
});
