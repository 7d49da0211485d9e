import { describe, expect, it } from '@jest/globals';
import { isRepeatedStateEvent, statusAfter } from './subscription.lifecycle.js';

describe('subscription lifecycle', () => {
  it('renews, fails, cancels and ends', () => {
    expect(statusAfter('active', 'renewed')).toBe('active');
    expect(statusAfter('active', 'payment_failed')).toBe('past_due');
    expect(statusAfter('past_due', 'renewed')).toBe('active');
    expect(statusAfter('past_due', 'cancelled')).toBe('cancelled');
    expect(statusAfter('cancelled', 'ended')).toBe('ended');
  });

  it('refuses events after the end and renewals after a cancellation', () => {
    for (const event of ['renewed', 'payment_failed', 'cancelled', 'ended'] as const)
      expect(statusAfter('ended', event)).toBeUndefined();
    expect(statusAfter('cancelled', 'renewed')).toBeUndefined();
    expect(statusAfter('cancelled', 'cancelled')).toBeUndefined();
  });

  it('treats cancelled and ended again as done, but a renewal or a failed charge again as a new event', () => {
    expect(isRepeatedStateEvent('cancelled', 'cancelled')).toBe(true);
    expect(isRepeatedStateEvent('ended', 'ended')).toBe(true);
    expect(isRepeatedStateEvent('ended', 'cancelled')).toBe(false);
    expect(isRepeatedStateEvent('active', 'renewed')).toBe(false);
    expect(isRepeatedStateEvent('past_due', 'payment_failed')).toBe(false);
  });
});
