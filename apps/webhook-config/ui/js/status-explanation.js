// @ts-check
// What a delivery status means for a shop owner: what happened, why, and what to do about it. Shown beside each
// log entry; the log API itself returns the entry as it was logged, without explanations.

/** @typedef {{ title: string, cause: string, remedy: string }} StatusExplanation */

/** @type {StatusExplanation} */
const SUCCESS = {
  title: 'Delivered',
  cause: 'Your server confirmed that it received the webhook.',
  remedy: 'Nothing to do.',
};

/** @type {Record<number, StatusExplanation>} */
const KNOWN = {
  0: {
    title: 'No response (timeout or connection failed)',
    cause:
      'Your server did not send a complete answer in time, or it could not be reached at all: the address may not exist, the connection may have been refused, or the HTTPS certificate may be invalid. The technical details (the error) say which.',
    remedy:
      'Check that the URL is correct and that your server is online and reachable from the internet with a valid certificate. Answer quickly: reply 200 first, then do slow work (e-mails, stock updates) afterwards.',
  },
  301: {
    title: 'Moved permanently — redirect not followed',
    cause: 'Your server answered that the webhook address has moved to another URL. Webhooks never follow redirects.',
    remedy:
      'Enter the final address as the webhook URL — often the https:// version or the URL with (or without) a trailing slash.',
  },
  302: {
    title: 'Redirecting — redirect not followed',
    cause:
      'Your server redirected the webhook to another URL, often to a login page or to the https:// address. Webhooks never follow redirects.',
    remedy: 'Enter the final address as the webhook URL, and make sure the webhook address does not require a login.',
  },
  303: {
    title: 'Redirecting (see other) — redirect not followed',
    cause: 'Your server redirected the webhook to another URL. Webhooks never follow redirects.',
    remedy: 'Enter the final address as the webhook URL.',
  },
  307: {
    title: 'Temporary redirect — redirect not followed',
    cause: 'Your server redirected the webhook to another URL. Webhooks never follow redirects.',
    remedy: 'Enter the final address as the webhook URL — often the https:// version.',
  },
  308: {
    title: 'Moved permanently — redirect not followed',
    cause: 'Your server answered that the webhook address has moved to another URL. Webhooks never follow redirects.',
    remedy:
      'Enter the final address as the webhook URL — often the https:// version or the URL with (or without) a trailing slash.',
  },
  400: {
    title: 'Bad request',
    cause: 'Your server did not accept the content of the webhook.',
    remedy:
      'Check that the content type (JSON or PHP form post) and the version match what your shop system expects, and look at its log for the reason.',
  },
  401: {
    title: 'Unauthorized',
    cause: 'Your server asks for a login or password before it accepts the request. Webhooks do not log in.',
    remedy:
      'Exclude the webhook address from password protection, and check the webhook signature with your secret instead.',
  },
  403: {
    title: 'Forbidden',
    cause:
      'Your server refused the webhook. Common reasons: a firewall or security plugin blocking unknown senders, CSRF protection of your shop framework, or the shop being in maintenance mode.',
    remedy:
      'Allow POST requests to the webhook address: exclude it from CSRF protection and from firewall or bot rules. Check the signature with your secret to make sure webhooks are genuine.',
  },
  404: {
    title: 'Not found',
    cause:
      'There is no page at this URL on your server: the path is mistyped, or the shop plugin that receives webhooks is not installed or active.',
    remedy:
      'Check the webhook URL character by character against your shop system’s documentation, and make sure the plugin is installed and enabled.',
  },
  405: {
    title: 'Method not allowed',
    cause:
      'The address exists but does not accept POST requests — it is probably a normal web page, not the webhook receiver.',
    remedy: 'Use the webhook address from your shop system’s documentation.',
  },
  408: {
    title: 'Request timeout',
    cause: 'Your server gave up waiting for the webhook request.',
    remedy: 'Check your server’s timeouts and load; if it happens again, contact your hosting provider.',
  },
  410: {
    title: 'Gone',
    cause: 'Your server says this webhook address no longer exists.',
    remedy: 'Enter the current webhook address, or delete this webhook if you no longer need it.',
  },
  413: {
    title: 'Request too large',
    cause: 'Your server refused the webhook because of its size.',
    remedy: 'Raise the request size limit of your server (webhooks are small, a few kilobytes).',
  },
  415: {
    title: 'Unsupported content type',
    cause: 'Your server does not accept the format the webhook was sent in.',
    remedy:
      'Switch the content type setting: PHP form post for shop systems that read $_POST, JSON for everything else.',
  },
  422: {
    title: 'Unprocessable',
    cause:
      'Your server understood the webhook but rejected its content — often a signature check that failed, or an unexpected version.',
    remedy:
      'Make sure your server uses the current secret (after a rotation the new one) and the version you selected here.',
  },
  429: {
    title: 'Too many requests',
    cause: 'Your server or its hosting provider is limiting how many requests it accepts.',
    remedy: 'Allow more requests to the webhook address. With “Retry on error”, the webhook will be sent again later.',
  },
  500: {
    title: 'Error on your server',
    cause:
      'Your server received the webhook but failed while processing it (an internal server error, often a bug or a database problem).',
    remedy: 'Look at your server’s or shop system’s error log at the time shown. Fix the error, then use Resend.',
  },
  502: {
    title: 'Bad gateway',
    cause: 'A proxy or load balancer in front of your server got no valid answer from it.',
    remedy: 'Check that your application server is running behind the proxy; your hosting provider can help.',
  },
  503: {
    title: 'Service unavailable',
    cause: 'Your server is overloaded or in maintenance mode.',
    remedy:
      'Wait until it is back. With “Retry on error” the webhook is sent again automatically; otherwise use Resend.',
  },
  504: {
    title: 'Gateway timeout',
    cause: 'A proxy in front of your server waited too long for your application.',
    remedy: 'Make the webhook handler answer faster: reply 200 first and do slow work afterwards.',
  },
};

/** Entries that made no request (CONTRACT §5: status null), by outcome. */
const NOT_SENT = {
  skipped: {
    title: 'Not sent — the webhook was disabled',
    cause: 'While a webhook is disabled, its events are recorded here but not sent.',
    remedy: 'Enable the webhook; then recover the events you missed since the time it was disabled.',
  },
  superseded: {
    title: 'Repeat not needed — a newer status was delivered',
    cause:
      'A newer event of the same payment reached your server, so this older one was not sent again: shop systems ' +
      'answer an outdated status with an error.',
    remedy: 'Nothing to do.',
  },
};

/**
 * Explains a log entry: the HTTP status its attempt ended with, or why no request was made.
 * @param {{ status: number | null, outcome: string }} entry
 * @returns {StatusExplanation}
 */
export function explainEntry(entry) {
  if (entry.status !== null) return explainStatus(entry.status);
  return entry.outcome === 'skipped' ? NOT_SENT.skipped : NOT_SENT.superseded;
}

/**
 * Explains any HTTP status a delivery attempt ended with (0 = no complete response).
 * @param {number} status
 * @returns {StatusExplanation}
 */
export function explainStatus(status) {
  if (status >= 200 && status < 300) return SUCCESS;
  const known = KNOWN[status];
  if (known) return known;
  if (status >= 300 && status < 400) {
    return {
      title: `Redirect (${status}) — not followed`,
      cause: 'Your server answered with a redirect. Webhooks never follow redirects.',
      remedy: 'Enter the final address as the webhook URL.',
    };
  }
  if (status >= 400 && status < 500) {
    return {
      title: `Refused by your server (${status})`,
      cause: `Your server refused the webhook with status ${status}.`,
      remedy: 'Look at your server’s log for the reason, and check the URL and the content type setting.',
    };
  }
  if (status >= 500 && status < 600) {
    return {
      title: `Error on your server (${status})`,
      cause: `Your server failed while handling the webhook (status ${status}).`,
      remedy: 'Look at your server’s error log at the time shown, fix the error, then use Resend.',
    };
  }
  return {
    title: `Unexpected answer (${status})`,
    cause: `Your server answered with status ${status}, which does not confirm receipt. Only 2xx answers count as delivered.`,
    remedy: 'Make your webhook handler answer 200 once it has received the webhook.',
  };
}

/**
 * What the 403 explanation says about where webhooks come from, for a firewall that admits known senders only.
 * @param {string[]} addresses the published sender addresses and ranges (GET /webhook-sender-addresses)
 * @returns {{ text: string, addresses: string[] }} the advice, and the addresses to list below it
 */
export function senderAddressAdvice(addresses) {
  if (addresses.length > 0) {
    return {
      text: 'If your firewall or security plugin admits only known senders, allow-list these addresses — every webhook is sent from one of them:',
      addresses,
    };
  }
  return {
    text: 'Webhooks are sent from the platform’s servers, whose addresses are not published here and may change. If your firewall must list its senders, ask our support for the current addresses — or, better, let POST requests to the webhook address through and accept only those whose signature checks out with your secret.',
    addresses: [],
  };
}

/** What status 0 means for `payments listen`: the command line could not get an answer from the local URL. */
const LOCAL_NO_RESPONSE = {
  title: 'No response from your local server',
  cause:
    'The command line could not forward the event to your local URL: nothing listened on it, the connection was refused, or your server did not answer in time. The error below says which.',
  remedy:
    'Start your server on the port and path of --forward-to (or change --forward-to), then send a new sample with npx payments trigger. Answer quickly: reply 200 first, then do slow work afterwards.',
};

/**
 * Explains what the local URL of a `payments listen` session answered (0 = no complete response): the webhook log's
 * explanations of the status, with what to do locally (the command line never repeats an event, nothing can be
 * resent: a new sample is triggered instead).
 * @param {number} status
 * @returns {StatusExplanation}
 */
export function explainForwardStatus(status) {
  if (status === 0) return LOCAL_NO_RESPONSE;
  const explanation = explainStatus(status);
  if (status >= 200 && status < 300) {
    return { ...explanation, cause: 'Your local server confirmed that it received the event.' };
  }
  return {
    ...explanation,
    remedy:
      status >= 300 && status < 400
        ? 'Point --forward-to at the final address (webhooks never follow redirects), then send a new sample with npx payments trigger.'
        : 'Look at your local server’s log for the reason, fix your webhook handler, then send a new sample with npx payments trigger. Forwarded events are not repeated.',
  };
}
