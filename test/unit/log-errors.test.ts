import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/main/server.js";

/** A driver error as pg builds one: the row in `detail`, the statement in `where` and `internalQuery`. */
function driverError(): Error {
  return Object.assign(new Error('duplicate key value violates unique constraint "transactions_ref_uq"'), {
    code: "23505",
    constraint: "transactions_ref_uq",
    table: "transactions",
    column: "reference",
    detail: "Key (firm_id, reference)=(1, R-secret-ref) already exists.",
    where: "SQL statement \"INSERT INTO transactions VALUES ('TR330006100519786457841326')\"",
    internalQuery: "SELECT 'TR330006100519786457841326'",
    parameters: ["TR330006100519786457841326"],
  });
}

describe("the logger's err serializer", () => {
  it("keeps the SQLSTATE, the names and the stack; drops the data, at every level; leaves the error as it was", () => {
    const lines: string[] = [];
    const log = createLogger("info", { write: (line: string) => void lines.push(line) });
    const err = driverError();
    const wrapped = Object.assign(new Error("write failed", { cause: driverError() }), {
      inner: driverError(),
    });
    log.error({ err }, "direct");
    log.error({ err: new AggregateError([driverError()], "batch failed") }, "aggregate");
    log.error({ err: wrapped }, "nested");
    log.error(driverError(), "as the only argument");
    expect(lines).toHaveLength(4);
    const text = lines.join("");
    for (const value of ["R-secret-ref", "TR330006100519786457841326", "Key (", "SQL statement"])
      expect(text, value).not.toContain(value);
    const direct = JSON.parse(lines[0] as string).err;
    expect(direct).toMatchObject({
      code: "23505",
      constraint: "transactions_ref_uq",
      table: "transactions",
      column: "reference",
    });
    expect(direct.stack).toContain("transactions_ref_uq");
    expect(JSON.parse(lines[1] as string).err.aggregateErrors[0].code).toBe("23505");
    expect(JSON.parse(lines[2] as string).err.inner.constraint).toBe("transactions_ref_uq");
    expect(err).toHaveProperty("detail");
  });
});
