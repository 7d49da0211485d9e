import { registerDecorator, type ValidationArguments } from 'class-validator';
import { webhookUrlSyntaxProblem } from '../webhook-url.policy.js';

/** class-validator rule for the syntax of a webhook URL (the address check is async, in WebhookSettingsValidator). */
export function IsWebhookUrl(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isWebhookUrl',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => webhookUrlSyntaxProblem(value) === undefined,
        defaultMessage: (args?: ValidationArguments) => `${args?.property} ${webhookUrlSyntaxProblem(args?.value)}`,
      },
    });
}
