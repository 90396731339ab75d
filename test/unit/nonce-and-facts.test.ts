import type { Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import type { Prepared, StatementRunner } from "../../src/store/prepared.js";
import type { Database } from "../../src/store/schema.js";
import { createTransactionRepository } from "../../src/store/transactions.js";

/**
 * The embedded store sends what one turn of the event loop asked as one message to its thread, and
 * answers only after that message has run (sqlite-group-commit.ts). A request that asks its second
 * statement only once the first has answered pays a second round trip: measured under load, that
 * was a third of a deposit's wait for the store. This runner behaves like the thread (it answers
 * nothing before the turn that asked has ended) and records which statements each message carried.
 */
function turnRunner(answer: (statement: Prepared) => unknown) {
  const messages: string[][] = [];
  let open: { names: string[]; answers: (() => void)[] } | undefined;
  const ask = <T>(statement: Prepared): Promise<T> =>
    new Promise((resolve) => {
      if (!open) {
        const message = { names: [] as string[], answers: [] as (() => void)[] };
        open = message;
        setImmediate(() => {
          open = undefined;
          messages.push(message.names);
          for (const send of message.answers) send();
        });
      }
      open.names.push(statement.name);
      open.answers.push(() => resolve(answer(statement) as T));
    });
  const runner: StatementRunner = {
    rows: <R>(statement: Prepared) => ask<R[]>(statement),
    changes: (statement: Prepared) => ask<number>(statement),
  };
  return { runner, messages };
}

// Only the hot-path statements are used here; the query builder is never touched.
const noQueryBuilder = {} as Kysely<Database>;

/** One request's nonce and facts, answered by `answer`; what each message to the store carried. */
async function nonceAndFacts(answer: (statement: Prepared) => unknown, type: "deposit" | "withdrawal") {
  const { runner, messages } = turnRunner(answer);
  const repo = createTransactionRepository(noQueryBuilder, runner, "sqlite");
  const outcome = await repo.nonceAndFacts(
    { firmId: 7, nonce: "nonce-0001", expiresAt: 1_000 },
    { reference: "R-1", userId: "u-1", type },
  );
  return { messages, outcome };
}

describe("nonce and business facts on the embedded store", () => {
  it("asks both statements in one turn, so they travel in one message, nonce first", async () => {
    const { messages, outcome } = await nonceAndFacts(
      (statement) => (statement.name === "nonce_record" ? 1 : [{ r: 0, b: 1, p: 0 }]),
      "deposit",
    );
    expect(messages).toEqual([["nonce_record", "tx_business_facts"]]);
    expect(outcome).toEqual({
      nonceFresh: true,
      facts: { referenceUsed: false, userBanned: true, pendingExists: false },
    });
  });

  it("reports a used nonce from the same message", async () => {
    const { messages, outcome } = await nonceAndFacts(
      (statement) => (statement.name === "nonce_record" ? 0 : [{ r: 1, b: 0, p: 1 }]),
      "withdrawal",
    );
    expect(messages).toEqual([["nonce_record", "tx_business_facts"]]);
    expect(outcome.nonceFresh).toBe(false);
  });
});
