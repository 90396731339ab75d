/**
 * Log lines for a person: `14:05:09.123 WARN the message key=value …`, from the JSON line pino
 * writes, so redaction and the error serializer have already run on it. A line that is not JSON
 * passes as it is.
 */
import type { DestinationStream } from "pino";

const LEVELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};

export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { level, time, msg, pid: _pid, hostname: _hostname, ...rest } = entry;
  const at = typeof time === "number" ? new Date(time).toISOString().slice(11, 23) : "";
  const extras = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
  const name = LEVELS[level as number] ?? String(level);
  return `${at} ${name.padEnd(5)} ${String(msg ?? "")}${extras ? ` ${extras}` : ""}\n`;
}

export function prettyDestination(out: NodeJS.WritableStream): DestinationStream {
  return { write: (line: string) => void out.write(prettyLine(line)) };
}

/** The format asked for, else pretty on a terminal (a person reads it) and JSON elsewhere. */
export function prettyLogs(format: "json" | "pretty" | undefined, isTerminal: boolean): boolean {
  return format === undefined ? isTerminal : format === "pretty";
}
