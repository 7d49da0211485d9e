const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID of any version, in either letter case. */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
