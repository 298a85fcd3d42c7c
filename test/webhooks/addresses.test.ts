// The address rules of subscriber URLs: every class of refused address, in IPv4 and
// IPv6 and through the IPv6 forms that embed an IPv4 address, and the URL checks that
// resolve a host name and refuse it when any of its addresses is refused.
import { describe, expect, it } from 'vitest';
import { checkWebhookTarget, classifyAddress, type AddressPolicy, type HostLookup } from '../../src/domain/webhooks.ts';
import { Invalid } from '../../src/domain/errors.ts';
import { retryDelayMs, DEFAULT_RETRY } from '../../src/webhooks/dispatcher.ts';

describe('classifyAddress', () => {
  it.each([
    // IPv4
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.170.2', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['192.0.0.192', 'cloud metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    // IPv6
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    // IPv4 inside IPv6
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:a9fe:a9fe', 'cloud metadata'],
    ['::ffff:224.0.0.1', 'multicast'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['2002:c0a8:0101::1', 'private'],
    ['2002:a9fe:a9fe::', 'cloud metadata'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each(['8.8.8.8', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])(
    '%s is public',
    (address) => {
      expect(classifyAddress(address)).toBeNull();
    },
  );
});

function policy(records: Record<string, string[]>, allowLoopback = false): AddressPolicy {
  const lookup: HostLookup = async (host) => {
    const addresses = records[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { allowLoopback, lookup };
}

async function refusal(url: string, p: AddressPolicy): Promise<string> {
  const error = await checkWebhookTarget(url, p).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Invalid);
  expect((error as Invalid).issues[0].path).toBe('url');
  return (error as Invalid).message;
}

describe('checkWebhookTarget', () => {
  const dns = policy({
    'hooks.example.com': ['93.184.215.14', '2606:2800:220:1::1'],
    'sneaky.example.com': ['93.184.215.14', '10.0.0.8'],
    'internal.example.com': ['192.168.0.20'],
    'v6.example.com': ['fe80::5'],
    'localhost': ['127.0.0.1', '::1'],
  });

  it('accepts an https URL whose host resolves to public addresses only, and keeps every checked address', async () => {
    const target = await checkWebhookTarget('https://hooks.example.com/in?x=1', dns);
    expect(target.host).toBe('hooks.example.com');
    expect(target.addresses).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
  });

  it('refuses a host when any one of its addresses is refused', async () => {
    expect(await refusal('https://sneaky.example.com/', dns)).toBe(
      'sneaky.example.com resolves to 10.0.0.8, a private address; webhooks are only sent to public addresses',
    );
    expect(await refusal('https://internal.example.com/', dns)).toContain('192.168.0.20, a private address');
    expect(await refusal('https://v6.example.com/', dns)).toContain('fe80::5, a link-local address');
  });

  it('checks IP literals, including IPv6 and the unusual IPv4 spellings URLs normalise', async () => {
    expect(await refusal('https://[::1]/', dns)).toContain('::1, a loopback address');
    expect(await refusal('https://[::ffff:127.0.0.1]/', dns)).toContain('a loopback address');
    expect(await refusal('https://[::ffff:169.254.169.254]/', dns)).toContain('a cloud metadata address');
    expect(await refusal('https://0x7f.1/', dns)).toContain('127.0.0.1, a loopback address');
    expect(await refusal('https://2130706433/', dns)).toContain('127.0.0.1, a loopback address');
    expect(await refusal('https://169.254.169.254/latest/meta-data', dns)).toContain('a cloud metadata address');
    await expect(checkWebhookTarget('https://[2606:4700::1111]:8443/x', dns)).resolves.toMatchObject({ host: '2606:4700::1111' });
  });

  it('refuses cloud metadata host names without resolving them', async () => {
    expect(await refusal('https://metadata.google.internal/computeMetadata/v1/', dns)).toContain('cloud metadata service');
    expect(await refusal('https://METADATA.google.internal./', dns)).toContain('cloud metadata service');
  });

  it('refuses hosts that do not resolve, and malformed URLs', async () => {
    expect(await refusal('https://nowhere.example.com/', dns)).toBe('host nowhere.example.com does not resolve (ENOTFOUND)');
    expect(await refusal('not a url', dns)).toBe('must be an absolute URL');
    expect(await refusal('https://user:pass@hooks.example.com/', dns)).toContain('must not contain credentials');
    expect(await refusal(`https://hooks.example.com/${'a'.repeat(2048)}`, dns)).toContain('at most 2048 characters');
    expect(await refusal('ftp://hooks.example.com/', dns)).toBe('must use https');
  });

  it('accepts plain http only to loopback, and loopback only when allowed', async () => {
    expect(await refusal('http://hooks.example.com/', dns)).toBe('must use https');
    expect(await refusal('http://localhost:8080/', dns)).toBe(
      'must use https; plain http to a loopback receiver is accepted only when the server runs with WEBHOOKS_ALLOW_LOOPBACK=true (development only)',
    );
    expect(await refusal('http://[::1]:8080/', dns)).toContain('WEBHOOKS_ALLOW_LOOPBACK=true');
    expect(await refusal('https://localhost/', dns)).toContain('127.0.0.1, a loopback address');
    expect(await refusal('https://localhost/', dns)).toContain('loopback is accepted only when the server runs with WEBHOOKS_ALLOW_LOOPBACK=true');

    const loopback = policy({ localhost: ['127.0.0.1', '::1'], 'hooks.example.com': ['93.184.215.14'] }, true);
    await expect(checkWebhookTarget('http://localhost:8080/in', loopback)).resolves.toMatchObject({ host: 'localhost' });
    await expect(checkWebhookTarget('http://[::1]:8080/in', loopback)).resolves.toMatchObject({ host: '::1' });
    await expect(checkWebhookTarget('https://127.0.0.1/', loopback)).resolves.toBeDefined();
    expect(await refusal('http://hooks.example.com/', loopback)).toContain('plain http is accepted for loopback addresses only');
    // Allowing loopback allows nothing else.
    expect(await refusal('http://10.0.0.1/', loopback)).toContain('a private address');
  });
});

describe('retry schedule', () => {
  it('doubles from 1 s and is capped at 5 minutes, over 8 attempts', () => {
    expect(DEFAULT_RETRY.maxAttempts).toBe(8);
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => retryDelayMs(attempt, DEFAULT_RETRY))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000]);
    expect(retryDelayMs(12, DEFAULT_RETRY)).toBe(300_000);
  });
});
