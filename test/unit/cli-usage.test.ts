import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AdminClient } from "../../src/main/admin-client.js";
import {
  COMMANDS,
  type Flags,
  optionsOf,
  prepareCommand,
  runCommand,
  SYNTAX,
  usageOf,
} from "../../src/main/commands.js";

/**
 * The usage each command shows (`payintake firm create --help`) is what it takes: every option it
 * names is read by the command, every option the command reads is named, and each positional
 * argument named is one it takes. Run through the CLI's own argument layer with a client that only
 * records the call (no server: this is about argv, not the API).
 */
const recorder = (): AdminClient & { calls: unknown[] } => {
  const calls: unknown[] = [];
  return {
    calls,
    async call(method, path, body) {
      calls.push({ method, path, body });
      return { status: 200, json: {} };
    },
    async download(path) {
      calls.push({ method: "GET", path });
      // Not found: a command given --out writes no file into the test's working directory.
      return { status: 404, bytes: Buffer.alloc(0), json: {}, notices: [] };
    },
  };
};

/** A value each placeholder accepts: the first of a choice, digits for ids and amounts. */
function sample(placeholder: string): string {
  const first = placeholder.split("|")[0] as string;
  if (/^(ID|M|N|MS|PER_SECOND|PERCENT|AMOUNT)$/.test(first)) return "1";
  if (first === "TR...") return "TR330006100519786457841326";
  if (first === "TIME") return "2026-11-27T00:00:00Z";
  if (first === "YYYY-MM-DD") return "2026-11-27";
  return first.toLowerCase() === first ? first : "x";
}

function parse(syntax: string): { positional: string[]; flags: Flags } {
  // One alternative of "ID | --failed-since TIME": the first.
  const words = (syntax.split(" | ")[0] as string).replace(/[[\]]/g, "").split(" ").filter(Boolean);
  const positional: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (!w.startsWith("--")) positional.push(sample(w));
    else if (words[i + 1] === undefined || words[i + 1]?.startsWith("--")) flags[w.slice(2)] = true;
    else flags[w.slice(2)] = sample(words[++i] as string);
  }
  return { positional, flags };
}

describe("operator CLI usage", () => {
  it("names every command, and nothing else", () => {
    expect(Object.keys(SYNTAX).sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  for (const [command, syntax] of Object.entries(SYNTAX)) {
    it(`${command}: takes everything its usage names`, async () => {
      const { positional, flags } = parse(syntax);
      // Reads standard input: named, not run here.
      delete flags["password-stdin"];
      // How the CLI prints the answer (firm create --env, cli.ts): never given to the command.
      delete flags.env;
      const client = recorder();
      await runCommand(COMMANDS[command] as never, client, positional, flags);
      expect(client.calls).toHaveLength(1);
    });

    it(`${command}: reads no option its usage leaves out`, async () => {
      const { positional, flags } = parse(syntax);
      delete flags["password-stdin"];
      delete flags.env;
      const read = new Set<string>();
      const spy = new Proxy(flags, {
        get(target, key) {
          if (typeof key === "string") read.add(key);
          return Reflect.get(target, key);
        },
      });
      await runCommand(COMMANDS[command] as never, recorder(), positional, spy);
      const named = new Set([...(syntax.match(/--[a-z0-9-]+/g) ?? [])].map((f) => f.slice(2)));
      for (const flag of read) expect([command, named.has(flag)]).toEqual([command, true]);
    });
  }

  it("`none` takes a limit off: the API is sent null", async () => {
    const client = recorder();
    await runCommand(COMMANDS["account update"] as never, client, ["3"], {
      min: "none",
      "daily-cap": "none",
    });
    expect(client.calls).toEqual([
      { method: "PATCH", path: "/admin/v1/accounts/3", body: { min: null, daily_cap: null } },
    ]);
  });

  it("an update that names nothing to change is a usage error, sent nowhere", async () => {
    for (const command of ["firm update", "account update", "provider update", "channel update"]) {
      const client = recorder();
      await expect((async () => runCommand(COMMANDS[command] as never, client, ["1"], {}))()).rejects.toThrow(
        "nothing to change: give at least one option (--help lists them)",
      );
      expect(client.calls).toEqual([]);
    }
  });

  it("a group's usage lists its commands with their options", () => {
    expect(usageOf("firm").split("\n")).toHaveLength(6);
    expect(usageOf("firm create")).toMatch(/^ {2}payintake firm create --name N \[--provider ID\]/);
    expect(usageOf("frobnicate")).toBe("");
  });
});

describe("a command's words, checked before there is a client", () => {
  // The CLI checks them before it reads the admin token or the server's URL (cli.ts): no client
  // exists yet, so anything wrong must be found without one.
  const firmCreate = COMMANDS["firm create"] as never;
  const options = optionsOf("firm create");

  it("a right command is ready without a client, and sends its one call once given one", async () => {
    const prepared = await prepareCommand(firmCreate, [], {
      name: "X",
      "webhook-url": "https://shop.example/h",
    });
    const client = recorder();
    expect(await prepared.send(client)).toEqual({ status: 200, json: {} });
    expect(client.calls).toEqual([
      { method: "POST", path: "/admin/v1/firms", body: { name: "X", webhook_url: "https://shop.example/h" } },
    ]);
  });

  it("a mistyped option, a missing one, a malformed value or an extra argument is refused without one", async () => {
    const wrong: [string[], Flags, string][] = [
      [
        [],
        { name: "X", webhook: "https://shop.example/h" },
        "unknown option --webhook for this command; did you mean --webhook-url?",
      ],
      [[], { "webhook-url": "https://shop.example/h" }, "--name is required"],
      [
        [],
        { name: "X", "rate-limit": "many" },
        '--rate-limit must be a whole number, 0 or more (got "many")',
      ],
      [["7"], { name: "X" }, 'unexpected argument "7"'],
    ];
    for (const [positional, flags, message] of wrong)
      await expect(prepareCommand(firmCreate, positional, flags, options)).rejects.toThrow(message);
  });
});

/**
 * docs/cli.md's "The operator CLI", to the next heading of its level or above. Missing or without
 * its table, it fails here rather than letting the checks below pass over nothing.
 */
function cliSection(): string {
  const page = readFileSync(new URL("../../docs/cli.md", import.meta.url), "utf8");
  const section = page.split(/^# The operator CLI\n/m)[1]?.split(/\n#{1,2} /)[0];
  if (section === undefined) throw new Error('docs/cli.md has no "# The operator CLI" heading');
  if (!section.includes("\n| Command | What it does |\n"))
    throw new Error('docs/cli.md\'s "The operator CLI" has no table of commands');
  return section;
}

/** The commands the table's first column names, each alternative spelled out (`tx list`, `tx show`). */
function documentedCommands(section: string): Set<string> {
  const commands = new Set<string>();
  for (const row of section.split("\n").filter((l) => l.startsWith("| `"))) {
    const firstCell = row.split(/(?<!\\)\|/)[1] ?? "";
    for (const [, code] of firstCell.matchAll(/`([^`]+)`/g)) {
      const words: string[] = [];
      for (const word of (code as string).replaceAll("\\|", "|").split(" ")) {
        if (!/^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*$/.test(word)) break;
        words.push(word);
      }
      const spelled = words.reduce<string[]>(
        (prefixes, word) => prefixes.flatMap((p) => word.split("|").map((w) => (p ? `${p} ${w}` : w))),
        [""],
      );
      for (const command of spelled) commands.add(command);
    }
  }
  return commands;
}

describe("docs/cli.md's table and --help", () => {
  it("names every command, and nothing else", () => {
    // The server's own commands, which cli.ts runs itself rather than through COMMANDS.
    const local = ["serve", "migrate", "master-key rotate", "channel-sim"];
    const documented = [...documentedCommands(cliSection())].sort();
    expect(documented).toEqual([...Object.keys(COMMANDS), ...local].sort());
  });

  it("write each option the same way: one that takes a value is shown with one", () => {
    const table = cliSection();
    // Options --help shows without a value: the operator commands' and master-key rotate's.
    const bare = new Set(["generate"]);
    for (const syntax of Object.values(SYNTAX))
      for (const m of syntax.matchAll(/--([a-z0-9-]+)(?=\]|$)/g)) bare.add(m[1] as string);
    const shownBare = [...table.matchAll(/--([a-z0-9-]+)\]/g)].map((m) => m[1] as string);
    expect(shownBare.length).toBeGreaterThan(0);
    for (const flag of shownBare) expect([flag, bare.has(flag)]).toEqual([flag, true]);
  });
});
