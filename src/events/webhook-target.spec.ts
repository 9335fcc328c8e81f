import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { checkedAddress, embeddedIPv4, isPublicAddress, parseWebhookUrl, WebhookInputError } from './webhook-target.js';

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

  // Each block of IANA's special-purpose registries that is not globally reachable, by an address inside it and, where
  // the block has a public neighbour, one just outside it (EXTENSIONS "Events" → "Webhooks").
  it.each([
    ['0.0.0.0/8', '0.1.2.3', '1.0.0.1'],
    ['10.0.0.0/8', '10.255.255.255', '11.0.0.1'],
    ['100.64.0.0/10', '100.127.255.254', '100.128.0.1'],
    ['127.0.0.0/8', '127.0.0.1', '128.0.0.1'],
    ['169.254.0.0/16', '169.254.169.254', '169.255.0.1'],
    ['172.16.0.0/12', '172.16.0.1', '172.15.255.254'],
    ['192.0.0.0/24', '192.0.0.8', '192.0.1.1'],
    ['192.0.2.0/24', '192.0.2.1', '192.0.3.1'],
    ['192.88.99.0/24', '192.88.99.1', '192.88.98.1'],
    ['192.168.0.0/16', '192.168.1.1', '192.169.0.1'],
    ['198.18.0.0/15', '198.18.0.1', '198.20.0.1'],
    ['198.18.0.0/15', '198.19.255.254', '198.17.255.254'],
    ['198.51.100.0/24', '198.51.100.7', '198.51.101.7'],
    ['203.0.113.0/24', '203.0.113.9', '203.0.112.9'],
    ['224.0.0.0/4', '239.1.2.3', '223.255.255.254'],
    ['240.0.0.0/4', '240.0.0.1', '223.1.2.3'],
    ['255.255.255.255/32', '255.255.255.255', '8.8.4.4'],
    ['::/128', '::', '2001:4860:4860::8888'],
    ['::1/128', '::1', '2001:4860:4860::8844'],
    ['100::/64', '100::1', '2606:4700:4700::1111'],
    ['64:ff9b:1::/48', '64:ff9b:1::808:808', '64:ff9b::808:808'],
    ['2001::/23', '2001:2::1', '2001:3::1'],
    ['2001::/23', '2001:10::1', '2001:20::1'],
    ['2001::/23', '2001:1::4', '2001:1::1'],
    ['2001:db8::/32', '2001:db8::1', '2001:db9::1'],
    ['3fff::/20', '3fff::1', '3ffe::1'],
    ['5f00::/16', '5f00::1', '2a00:1450::1'],
    ['fc00::/7', 'fd12:3456::1', '2a00:1450:4001::1'],
    ['fe80::/10', 'fe80::1', '2a03:2880::1'],
    ['fec0::/10', 'fec0::1', '2620:4f:8000::1'],
    ['ff00::/8', 'ff02::1', '2400:cb00::1'],
  ])('refuses %s (%s) and accepts its public neighbour %s', (_block, inside, outside) => {
    expect(isPublicAddress(inside)).toBe(false);
    expect(isPublicAddress(outside)).toBe(true);
  });

  it.each(['192.0.0.9', '192.0.0.10', '2001:1::1', '2001:1::2', '2001:1::3', '2001:3::1', '2001:4:112::1', '2001:20::1', '2001:30::1'])(
    'accepts %s, globally reachable inside a block that is not',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  // IPv6 forms that carry an IPv4 address are judged by it as well.
  it.each([
    ['IPv4-compatible (deprecated, outside 2000::/3)', '::127.0.0.1', null],
    ['IPv4-compatible, the metadata address', '::a9fe:a9fe', null],
    ['IPv4-compatible, a public one', '::1.2.3.4', null],
    ['IPv4-mapped', '::ffff:169.254.169.254', '::ffff:1.1.1.1'],
    ['IPv4-mapped, benchmarking', '::ffff:198.18.0.1', '::ffff:198.20.0.1'],
    ['NAT64', '64:ff9b::7f00:1', '64:ff9b::808:808'],
    ['NAT64, metadata', '64:ff9b::a9fe:a9fe', '64:ff9b::101:101'],
    ['6to4', '2002:7f00:1::1', '2002:808:808::1'],
    ['6to4, private', '2002:c0a8:101::1', '2002:101:101::1'],
    // Teredo: server 65.54.227.120 (public), client the last 32 bits inverted: 0x80ffff fe → 127.0.0.1, 0xf7f7f7f7 → 8.8.8.8.
    ['Teredo, loopback client', '2001:0:4136:e378:8000:63bf:80ff:fffe', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
    ['Teredo, private server', '2001:0:a00:1:8000:63bf:f7f7:f7f7', '2001:0:4136:e378::f7f7:f7f7'],
  ])('judges %s: refuses %s, accepts %s', (_form, refused, accepted) => {
    expect(isPublicAddress(refused)).toBe(false);
    if (accepted) expect(isPublicAddress(accepted)).toBe(true);
  });

  it('reads the embedded IPv4 of each form', () => {
    const of = (a: string) => embeddedIPv4(ipaddr.parse(a) as ipaddr.IPv6).map(String);
    expect(of('::ffff:10.1.2.3')).toEqual(['10.1.2.3']);
    expect(of('64:ff9b::a01:203')).toEqual(['10.1.2.3']);
    expect(of('2002:a01:203::1')).toEqual(['10.1.2.3']);
    expect(of('2001:0:4136:e378:8000:63bf:f5fe:fdfc')).toEqual(['65.54.227.120', '10.1.2.3']);
    expect(of('2606:4700::1111')).toEqual([]);
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
        const isPrivate =
          a === 10 || a === 127 || a === 0 || a >= 224 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127) || (a === 198 && (b === 18 || b === 19));
        if (isPrivate) expect(isPublicAddress(address)).toBe(false);
        // Every IPv6 form that carries it says the same; the deprecated IPv4-compatible form is refused whatever it carries.
        const hex = ipaddr.parse(address).toByteArray().map((x) => x.toString(16).padStart(2, '0')).join('');
        const [hi, lo] = [hex.slice(0, 4), hex.slice(4)];
        for (const form of [`::ffff:${address}`, `64:ff9b::${address}`, `2002:${hi}:${lo}::1`]) expect(isPublicAddress(form)).toBe(isPublicAddress(address));
        expect(isPublicAddress(`::${address}`)).toBe(false);
      }),
      { numRuns: 5000 },
    );
  });
});
