import { describe, expect, it } from '@jest/globals';
import { startAttemptSpan, targetAttributes } from './delivery-attempt.span.js';

describe('an attempt span’s target attributes', () => {
  it('never keeps the query string or user info of the URL', () => {
    expect(targetAttributes('https://user:pass@shop.example:8443/hooks/in?token=secret#frag')).toEqual({
      'url.full': 'https://shop.example:8443/hooks/in',
      'url.scheme': 'https',
      'server.address': 'shop.example',
      'server.port': 8443,
    });
  });

  it('names the default port, and an IPv6 address without its brackets', () => {
    expect(targetAttributes('http://[2001:db8::1]/x?y=1')).toEqual({
      'url.full': 'http://[2001:db8::1]/x',
      'url.scheme': 'http',
      'server.address': '2001:db8::1',
      'server.port': 80,
    });
    expect(targetAttributes('https://shop.example')['server.port']).toBe(443);
  });

  it('has none for what does not parse', () => {
    expect(targetAttributes('not a url')).toEqual({});
  });

  it('makes no span with tracing off', () => {
    expect(startAttemptSpan({ url: 'https://shop.example/', webhookId: 'w', deliveryId: 'd', attempt: 1 })).toBe(
      undefined,
    );
  });
});
