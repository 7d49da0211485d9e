import { describe, expect, it } from '@jest/globals';
import { isAllowedWebhookPort, isPublicAddress, portOf } from './address-policy.js';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '::7f00:1',
    '::ffff:0:7f00:1',
    '64:ff9b::7f00:1',
    '64:ff9b:1::a00:1',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    'not-an-ip',
    '',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2001:4860::8888'])(
    'allows %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('isAllowedWebhookPort', () => {
  it.each([80, 443, 1024, 8080, 8443, 65_535])('allows %p', (port) => {
    expect(isAllowedWebhookPort(port)).toBe(true);
  });

  it.each([0, 1, 22, 25, 79, 81, 442, 444, 1023, 65_536, -80, 8080.5, Number.NaN])('refuses %p', (port) => {
    expect(isAllowedWebhookPort(port)).toBe(false);
  });
});

describe('portOf', () => {
  it.each([
    ['http://shop.example/hook', 80],
    ['https://shop.example/hook', 443],
    ['http://shop.example:80/hook', 80],
    ['https://shop.example:443/', 443],
    ['https://shop.example:80/', 80],
    ['http://shop.example:443/', 443],
    ['http://shop.example:/', 80],
    ['http://shop.example:0022/', 22],
    ['https://[2001:db8::1]:8443/', 8443],
    ['http://shop.example:0/', 0],
  ])('%s connects to port %p', (url, port) => {
    expect(portOf(new URL(url))).toBe(port);
  });
});
