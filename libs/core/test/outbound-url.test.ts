import { addressRange, OutboundUrlError, resolveOutboundUrl, type LookupAll } from '@switchyard/core';

describe('addressRange', () => {
  const cases: Array<[string, string]> = [
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['192.169.0.1', 'public'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2::255', 'private'],
    ['ff02::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:808:808::1', 'public'],
    ['not-an-ip', 'reserved'],
  ];
  it.each(cases)('%s is %s', (address, range) => {
    expect(addressRange(address)).toBe(range);
  });
});

describe('resolveOutboundUrl', () => {
  const dns = (table: Record<string, string[]>): LookupAll => async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const lookup = dns({
    'api.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'internal.example.com': ['10.0.0.5'],
    'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'empty.example.com': [],
  });

  async function refusal(url: string, options = {}): Promise<OutboundUrlError> {
    const error = await resolveOutboundUrl(url, { lookup, ...options }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OutboundUrlError);
    return error as OutboundUrlError;
  }

  it('returns the first resolved address to pin the connection to', async () => {
    const resolved = await resolveOutboundUrl('https://API.example.com./mcp', { lookup });
    expect(resolved).toMatchObject({ hostname: 'api.example.com', address: '93.184.216.34', family: 4 });
    expect(resolved.addresses).toEqual(['93.184.216.34', '2606:2800:220:1::1']);
    expect(resolved.url.pathname).toBe('/mcp');
  });

  it('takes IP literals without resolving them', async () => {
    const failing: LookupAll = () => Promise.reject(new Error('must not resolve'));
    expect(await resolveOutboundUrl('http://8.8.8.8:8080/', { lookup: failing })).toMatchObject({ address: '8.8.8.8', family: 4 });
    expect(await resolveOutboundUrl('http://[2606:4700:4700::1111]/', { lookup: failing })).toMatchObject({ address: '2606:4700:4700::1111', family: 6 });
  });

  it.each([
    ['http://internal.example.com/', 'private'],
    ['http://mixed.example.com/', 'loopback'],
    ['http://metadata.example.com/latest/meta-data/', 'metadata'],
    ['http://127.0.0.1:3000/mcp', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[fe80::1]/', 'link_local'],
    ['http://169.254.169.254/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://0.0.0.0:80/', 'unspecified'],
    ['http://100.64.1.1/', 'cgnat'],
  ])('refuses %s (%s)', async (url, range) => {
    const error = await refusal(url);
    expect(error.code).toBe('url_not_allowed');
    expect(error.data?.range).toBe(range);
  });

  it('refuses schemes other than http and https, and non-URLs', async () => {
    expect((await refusal('ftp://api.example.com/')).code).toBe('url_invalid');
    expect((await refusal('file:///etc/passwd')).code).toBe('url_invalid');
    expect((await refusal('not a url')).code).toBe('url_invalid');
  });

  it('reports hosts that do not resolve', async () => {
    expect((await refusal('http://nowhere.example.com/')).code).toBe('url_unresolvable');
    expect((await refusal('http://empty.example.com/')).code).toBe('url_unresolvable');
  });

  it('lets private addresses through with allowPrivate, but never metadata', async () => {
    expect(await resolveOutboundUrl('http://127.0.0.1:3000/mcp', { lookup, allowPrivate: true })).toMatchObject({ address: '127.0.0.1' });
    expect(await resolveOutboundUrl('http://internal.example.com/', { lookup, allowPrivate: true })).toMatchObject({ address: '10.0.0.5' });
    expect((await refusal('http://169.254.169.254/', { allowPrivate: true })).code).toBe('url_not_allowed');
    expect((await refusal('http://[::ffff:169.254.169.254]/', { allowPrivate: true })).code).toBe('url_not_allowed');
  });

  it('lets hosts on the allow-list through whatever they resolve to', async () => {
    expect(await resolveOutboundUrl('http://Internal.Example.com/', { lookup, allowedHosts: ['internal.example.com'] })).toMatchObject({ address: '10.0.0.5' });
    expect(await resolveOutboundUrl('http://[::1]:9000/', { lookup, allowedHosts: ['::1'] })).toMatchObject({ address: '::1', family: 6 });
    expect(await resolveOutboundUrl('http://169.254.169.254/', { lookup, allowedHosts: ['169.254.169.254'] })).toMatchObject({ address: '169.254.169.254' });
    // The list names hosts, not what they resolve to.
    expect((await refusal('http://internal.example.com/', { allowedHosts: ['10.0.0.5'] })).code).toBe('url_not_allowed');
  });

  it('resolves real names with the system resolver by default', async () => {
    expect(await resolveOutboundUrl('http://localhost:1/', { allowPrivate: true })).toMatchObject({ hostname: 'localhost' });
    await expect(resolveOutboundUrl('http://localhost:1/')).rejects.toMatchObject({ code: 'url_not_allowed' });
  });
});
