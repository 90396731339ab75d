import pino from "pino";

/**
 * Properties of driver errors that carry data, never logged: PostgreSQL's `detail` quotes the row or
 * key ("Failing row contains (…, TR33…26, Ayşe, …)", "Key (reference)=(…) already exists"), `where`
 * and `internalQuery` quote statements and their values, and `query`, `sql`, `parameters` and
 * `values` are what query builders and other drivers attach. What explains a failure stays: the
 * message, the SQLSTATE (`code`), the constraint, schema, table and column names, and the stack.
 */
const DATA_PROPERTIES = [
  "detail",
  "where",
  "internalQuery",
  "internalPosition",
  "query",
  "sql",
  "parameters",
  "params",
  "values",
] as const;

type Serialized = Record<string, unknown>;

function isSerializedError(value: unknown): value is Serialized {
  return typeof value === "object" && value !== null && "type" in value && "stack" in value;
}

function withoutData(serialized: Serialized): Serialized {
  for (const key of DATA_PROPERTIES) delete serialized[key];
  for (const [key, value] of Object.entries(serialized)) {
    if (key === "aggregateErrors" && Array.isArray(value)) {
      for (const inner of value) if (isSerializedError(inner)) withoutData(inner);
    } else if (isSerializedError(value)) withoutData(value);
  }
  return serialized;
}

/**
 * The logger's `err` serializer: pino's own (type, message with causes, stack, every other property,
 * nested errors), then the data properties dropped from the copy, at every level. The error itself
 * is left as it was: callers may still read its detail.
 */
export function serializeError(err: unknown): unknown {
  const serialized = pino.stdSerializers.err(err as Error);
  return isSerializedError(serialized) ? withoutData(serialized) : serialized;
}
