import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may never reach unless WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback, private, link-local
 * (including cloud metadata 169.254.169.254 and fd00:ec2::254), carrier-grade NAT, multicast, reserved and
 * the unspecified address — in IPv4 and IPv6, including IPv4-mapped IPv6 and the IPv6 forms that wrap an IPv4
 * address (NAT64, 6to4, Teredo).
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form (::7f00:1)
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b::', 96], // NAT64 (an IPv4 address inside)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64],
  // Tunnels with an IPv4 address inside, on a host with a relay: Teredo (2001::/32) and 6to4 (2002::/16; e.g.
  // 2002:7f00:1:: wraps 127.0.0.1). Both are deprecated and no webhook endpoint needs them: refused whole.
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** True when `address` (an IP literal) is a public unicast address a webhook may be delivered to. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return isPublicAddress(mapped[1]);
    return !blocked.check(address, 'ipv6');
  }
  return !blocked.check(address, 'ipv4');
}

/**
 * Ports a webhook may be delivered to: 80 and 443, and 1024–65535. The other ports below 1024 belong to services
 * that are no webhook receiver (22 SSH, 25 SMTP, …), and no port check is relaxed by WEBHOOK_ALLOW_PRIVATE_TARGETS.
 */
export function isAllowedWebhookPort(port: number): boolean {
  return port === 80 || port === 443 || (Number.isInteger(port) && port >= 1024 && port <= 65_535);
}

/** The port a parsed http(s) URL connects to: the one it names, else its scheme's default (443 for https, 80). */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}
