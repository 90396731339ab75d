import { describe, expect, it } from "vitest";
import { prettyDestination, prettyLine, prettyLogs } from "../../src/main/log-format.js";
import { createLogger } from "../../src/main/server.js";

describe("log lines for a person", () => {
  it("reads a pino line as time, level, message and the other fields", () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.UTC(2026, 10, 28, 14, 5, 9, 123),
      pid: 1,
      hostname: "h",
      msg: "slow",
      firm: 3,
      err: { type: "X" },
    });
    expect(prettyLine(line)).toBe('14:05:09.123 WARN  slow firm=3 err={"type":"X"}\n');
    expect(prettyLine("not json\n")).toBe("not json\n");
  });

  it("keeps the redaction: what JSON hides, the pretty line hides too", () => {
    const written: string[] = [];
    const logger = createLogger(
      "info",
      prettyDestination({ write: (s: string) => written.push(s) } as never),
    );
    logger.info({ iban: "TR330006100519786457841326", secret_key: "sk_live" }, "firm made");
    expect(written.join("")).toContain("iban=[redacted] secret_key=[redacted]");
    expect(written.join("")).not.toContain("TR33");
  });

  it("is pretty on a terminal unless asked otherwise, JSON elsewhere", () => {
    expect(prettyLogs(undefined, true)).toBe(true);
    expect(prettyLogs(undefined, false)).toBe(false);
    expect(prettyLogs("json", true)).toBe(false);
    expect(prettyLogs("pretty", false)).toBe(true);
  });

  it("drops Fastify's own listening line: the CLI prints the one to wait for", () => {
    const written: string[] = [];
    const logger = createLogger("info", { write: (s: string) => written.push(s) });
    logger.info("Server listening at http://127.0.0.1:8080");
    logger.info("something else");
    expect(written).toHaveLength(1);
  });
});
