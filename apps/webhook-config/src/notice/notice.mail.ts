import type { NoticeKind, NoticeReason } from './notice.repository.js';

/** What a notice e-mail tells of. */
export interface NoticeMailSubject {
  kind: NoticeKind;
  reason: NoticeReason | null;
  webhookName: string;
  failingSince: Date;
}

/** The e-mail of a notice: what happened, since when, and what to do. */
export function mailOf(notice: NoticeMailSubject): { subject: string; text: string } {
  const since = notice.failingSince.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  if (notice.kind === 'failing') {
    return {
      subject: `Webhook “${notice.webhookName}” is failing`,
      text:
        `Your server has not accepted the webhook “${notice.webhookName}” since ${since}: every attempt since then ` +
        'failed.\n\nThe delivery log in the merchant backend shows why for each attempt, and what to do. Webhooks that ' +
        'keep failing are repeated, and a webhook that keeps failing for days is disabled.\n',
    };
  }
  if (notice.reason === 'gone') {
    return {
      subject: `Webhook “${notice.webhookName}” was disabled: its URL answered 410 Gone`,
      text:
        `The webhook “${notice.webhookName}” was disabled because its URL answered “410 Gone” at ${since}: the ` +
        'receiver says the address no longer exists. Nothing is sent to it now; each event is recorded in its ' +
        'delivery log as not sent.\n\nIf the address is still in use, fix your server or enter its new URL, then ' +
        'enable the webhook again in the merchant backend and send what you missed from its log.\n',
    };
  }
  return {
    subject: `Webhook “${notice.webhookName}” was disabled`,
    text:
      `The webhook “${notice.webhookName}” was disabled because every attempt since ${since} failed. Nothing is sent ` +
      'to it now; each event is recorded in its delivery log as not sent.\n\nWhen your server is ready, enable the ' +
      'webhook again in the merchant backend and send what you missed from its log.\n',
  };
}
