import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ScrapeRead } from './scrape-read.js';

describe('ScrapeRead', () => {
  it('gives the value, undefined for a failure or a late answer, and logs the first failure and the recovery', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const source = new ScrapeRead('the backlog', 50);
      expect(await source.read(async () => 7)).toBe(7);
      expect(await source.read(() => Promise.reject(new Error('connection refused')))).toBeUndefined();
      expect(await source.read(() => new Promise((resolve) => setTimeout(() => resolve(8), 500)))).toBeUndefined();
      expect(warn.mock.calls).toEqual([['cannot read the backlog (reported as NaN): connection refused']]);
      expect(await source.read(async () => 9)).toBe(9);
      expect(log.mock.calls).toEqual([['the backlog is readable again']]);
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
  });
});
