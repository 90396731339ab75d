/** `payintake ledger …`: what the service owes each firm (docs/ledger.md, "Reports"). */
import { type Handler, int, need, str } from "./command-args.js";

export const LEDGER_COMMANDS: Record<string, Handler> = {
  "ledger balance": (c, _p, f) => {
    const firm = int(f, "firm") ?? Number(need(f, "firm"));
    const at = str(f, "at");
    return c.call(
      "GET",
      `/admin/v1/ledger/firms/${firm}/balance${at === undefined ? "" : `?at=${encodeURIComponent(at)}`}`,
    );
  },
};

export const LEDGER_SYNTAX: Record<keyof typeof LEDGER_COMMANDS, string> = {
  "ledger balance": "--firm ID [--at TIME]",
};
