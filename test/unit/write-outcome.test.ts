import { describe, expect, it } from "vitest";
import { NoAnswerError } from "../../src/store/engine/coalesce.js";
import { writeMayHaveHappened } from "../../src/store/engine/errors.js";

describe("writeMayHaveHappened: whether a write that threw may still be in the database", () => {
  it("a batch given up on after its time may still commit, on either store", () => {
    expect(writeMayHaveHappened(new NoAnswerError("late"), "postgres")).toBe(true);
    expect(writeMayHaveHappened(new NoAnswerError("late"), "sqlite")).toBe(true);
  });

  it("PostgreSQL refusing the statement (a SQLSTATE) wrote nothing", () => {
    for (const code of ["23514", "40P01", "57014", "25P02"]) {
      expect(writeMayHaveHappened(Object.assign(new Error("refused"), { code }), "postgres")).toBe(false);
    }
  });

  it("a connection lost mid-statement, or anything without a SQLSTATE, may have written", () => {
    expect(writeMayHaveHappened(new Error("Connection terminated unexpectedly"), "postgres")).toBe(true);
    expect(writeMayHaveHappened(Object.assign(new Error("x"), { code: "ECONNRESET" }), "postgres")).toBe(
      true,
    );
    expect(writeMayHaveHappened(undefined, "postgres")).toBe(true);
  });

  it("a SQLite statement that threw wrote nothing (it fails whole)", () => {
    expect(
      writeMayHaveHappened(Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" }), "sqlite"),
    ).toBe(false);
  });
});
