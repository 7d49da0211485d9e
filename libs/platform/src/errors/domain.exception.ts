/** One invalid input field, as listed in a problem's `errors`. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * What services, repositories and helpers throw: a feature's own subclass with a code from its enum, and no notion
 * of HTTP. `errors` names the invalid input fields, when the failure is about some.
 */
export abstract class DomainException<Code extends string = string> extends Error {
  constructor(
    message: string,
    readonly code: Code,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}
