import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';
import { ApiProblems } from '../http/problem.doc.js';

/** How long browsers, shop systems and caches in between may keep the list. */
export const SENDER_ADDRESSES_MAX_AGE_S = 3_600;

class SenderAddressesView {
  @ApiProperty({
    type: [String],
    example: ['203.0.113.10', '198.51.100.0/28', '2001:db8:10::/48'],
    description:
      'IP addresses and CIDR ranges (IPv4 and IPv6) that webhook deliveries leave from. Empty when none are ' +
      'published: then deliveries come from the platform’s servers, whose addresses may change.',
  })
  addresses!: string[];
}

/**
 * The addresses webhooks are sent from, for receivers whose firewall admits known senders only. Public: a shop's
 * administrator or script needs no backend account to read it, and it carries nothing secret (no cookie, no CSRF).
 */
@ApiTags('webhooks')
@Controller('webhook-sender-addresses')
export class WebhookSenderAddressesController {
  constructor(private readonly config: WebhookConfigConfig) {}

  @Get()
  @Header('cache-control', `public, max-age=${SENDER_ADDRESSES_MAX_AGE_S}`)
  @ApiOperation({
    summary: 'Addresses webhook deliveries come from (no authentication)',
    description:
      'For allow-lists in a receiver’s firewall. Checking the webhook-signature header remains the way to know a ' +
      'webhook is genuine.',
    security: [],
  })
  @ApiProblems([415], { 415: 'A request body that is not `application/json` (this route reads none: send none).' })
  @ApiOkResponse({
    type: SenderAddressesView,
    headers: {
      'Cache-Control': { description: `public, max-age=${SENDER_ADDRESSES_MAX_AGE_S}`, schema: { type: 'string' } },
    },
  })
  addresses(): SenderAddressesView {
    return { addresses: this.config.senderAddresses };
  }
}
