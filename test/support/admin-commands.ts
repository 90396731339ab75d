import { readLocalSecret } from "../../src/config/local-secrets.js";
import { createAdminClient } from "../../src/main/admin-client.js";
import { COMMANDS, optionsOf, parseArgv, runCommand } from "../../src/main/commands.js";
import { accountAddArgs } from "./spawn.js";

/**
 * The operator commands run in the test's own process, for tests in which the CLI is only the way
 * to set up or read what a server holds (an account, a firm, its transactions): the very command
 * code the built CLI runs (src/main/commands.ts), its one call sent to the server over HTTP, and the
 * same JSON object back. A CLI process costs a quarter of a second of CPU to start, and the
 * reliability and process tests ran over a hundred of them besides the servers they are about.
 * Tests of the CLI itself (test/process/cli.test.ts, statement-cli.test.ts) run the built one:
 * `operator` in spawn.ts.
 */
export function adminCommands(url: string, env: Record<string, string | undefined>) {
  const token = env.PAYINTAKE_ADMIN_TOKEN ?? readLocalSecret(env.PAYINTAKE_DATA_DIR ?? "", "admin.token");
  if (!token) throw new Error("adminCommands: no PAYINTAKE_ADMIN_TOKEN, and no admin.token in the data dir");
  // A connection per call, as the CLI's process has (createAdminClient).
  const client = createAdminClient(url, token);
  return {
    /** Runs the command; expects an answer below 400 and returns its JSON object, as `operator().ok`. */
    async ok(...args: string[]): Promise<any> {
      const { words, flags } = parseArgv(args);
      const three = words.slice(0, 3).join(" ");
      const command = COMMANDS[three] ? three : words.slice(0, 2).join(" ");
      const handler = COMMANDS[command];
      if (!handler) throw new Error(`adminCommands: no command "${command}"`);
      const positional = words.slice(command.split(" ").length);
      const r = await runCommand(handler, client, positional, flags, optionsOf(command));
      if (r.status >= 400)
        throw new Error(`payintake ${args.join(" ")} answered ${r.status}: ${JSON.stringify(r.json)}`);
      return r.json;
    },
    /** `account add`: a payment account deposits can be routed to. */
    addAccount(account: { bank: string; holder: string; iban: string }): Promise<any> {
      return this.ok(...accountAddArgs(account));
    },
  };
}
