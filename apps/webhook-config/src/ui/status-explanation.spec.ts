import { describe, expect, it } from '@jest/globals';
// The UI's own module (plain JavaScript, served as is).
import { explainStatus, senderAddressAdvice } from '../../ui/js/status-explanation.js';

describe('explainStatus', () => {
  it.each([
    [0, /No response/, /timeout|reached/i, /reachable/],
    [301, /Moved permanently/, /never follow redirects/, /final address/],
    [302, /Redirecting/, /never follow redirects/, /final address/],
    [403, /Forbidden/, /firewall|CSRF/, /Allow POST/],
    [404, /Not found/, /no page at this URL/, /Check the webhook URL/],
    [500, /Error on your server/, /failed while processing/, /error log/],
  ])('explains %i with a title, a cause and a remedy', (status, title, cause, remedy) => {
    const explanation = explainStatus(status);
    expect(explanation.title).toMatch(title);
    expect(explanation.cause).toMatch(cause);
    expect(explanation.remedy).toMatch(remedy);
  });

  it('treats every 2xx as delivered', () => {
    for (const status of [200, 201, 202, 204, 299]) {
      expect(explainStatus(status).title).toBe('Delivered');
    }
    expect(explainStatus(300).title).toBe('Redirect (300) — not followed');
    expect(explainStatus(0).title).toBe('No response (timeout or connection failed)');
  });

  it('has sensible text for any other code, naming it', () => {
    expect(explainStatus(399).title).toBe('Redirect (399) — not followed');
    expect(explainStatus(418).title).toBe('Refused by your server (418)');
    expect(explainStatus(599).title).toBe('Error on your server (599)');
    expect(explainStatus(102).title).toBe('Unexpected answer (102)');
    for (let status = 0; status < 700; status += 1) {
      const { title, cause, remedy } = explainStatus(status);
      expect(title && cause && remedy).toBeTruthy();
    }
  });

  it('tells a 403 receiver which sender addresses to allow-list, or what to do when none are published', () => {
    const published = senderAddressAdvice(['203.0.113.10', '2001:db8:10::/48']);
    expect(published.text).toMatch(/allow-list these addresses/);
    expect(published.addresses).toEqual(['203.0.113.10', '2001:db8:10::/48']);
    const none = senderAddressAdvice([]);
    expect(none.text).toMatch(/not published here.*ask our support.*signature checks out with your secret/);
    expect(none.addresses).toEqual([]);
  });
});
