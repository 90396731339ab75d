#!/usr/bin/env node
import { resolve } from "node:path";
import { CONFIG_VARIABLES, ConfigError, parseConfig } from "../config/config.js";
import { readLocalSecret } from "../config/local-secrets.js";
import { createAdminClient, UnreadableFile } from "./admin-client.js";
import {
  actor,
  COMMANDS,
  optionsOf,
  type PreparedCommand,
  parseArgv,
  prepareCommand,
  UsageError,
  usageOf,
} from "./commands.js";
import { RawOutput } from "./payout-commands.js";
import { closest } from "./suggest.js";

// The server, the store and the key rotation are loaded by the commands that run them: an operator
// command only talks HTTP, and loading the whole server would make each one take a second to start.

const USAGE = `payintake: payment intake service

  payintake serve [--role api|worker|all]
                                  start the server (embedded store, or DATABASE_URL); api answers
                                  HTTP, worker sends callbacks and runs auto-cancel, all both
  payintake migrate               apply database migrations and exit
  payintake master-key rotate [--generate]
                                  seal every secret at rest again under a new master key
                                  (PAYINTAKE_NEW_MASTER_KEY, or --generate for the embedded
                                  store's master.key); every server on the store must be stopped
  payintake channel-sim [--port P] [--host H] [--behaviour accept|slow|decline|hang|fail] [--delay-ms D]
        [--payout-behaviour accept|paid|refuse|hang|twice|return] [--payout-delay-ms D]
                                  a payment channel partner for development (docs/channels.md)

Operator commands (talk to the running server; PAYINTAKE_URL, PAYINTAKE_ADMIN_TOKEN; each prints
one JSON object; \`payintake firm --help\` lists one group):
${groupedUsage()}
`;

/** The operator commands, a paragraph per group (firms, accounts, …). */
function groupedUsage(): string {
  const groups = [...new Set(Object.keys(COMMANDS).map((c) => c.split(" ")[0] as string))];
  return groups.map((g) => usageOf(g)).join("\n\n");
}

/** Every first word the CLI knows: the server's commands and the operator commands' groups. */
const FIRST_WORDS = [
  "serve",
  "migrate",
  "master-key",
  "channel-sim",
  ...Object.keys(COMMANDS).map((c) => c.split(" ")[0] as string),
];

/**
 * An unknown command, said in one line with what it most likely meant, and where the list is:
 * the whole usage under it buried the one line that mattered.
 */
function unknownCommand(words: string[]): never {
  const [first = "", second = ""] = words;
  const typed = words.slice(0, 2).join(" ");
  let meant: string | undefined;
  if (FIRST_WORDS.includes(first)) {
    const inGroup = Object.keys(COMMANDS).filter((c) => c.startsWith(`${first} `));
    const sub = closest(
      second,
      inGroup.map((c) => c.slice(first.length + 1)),
    );
    if (sub) meant = `${first} ${sub}`;
  } else {
    const group = closest(first, [...new Set(FIRST_WORDS)]);
    if (group) meant = [group, second].filter(Boolean).join(" ");
  }
  const group = FIRST_WORDS.includes(first) ? usageOf(first) : "";
  fail(
    `unknown command "${typed}"${meant ? `; did you mean "${meant}"?` : ""}${
      group ? `\n\n${group}` : " (payintake --help lists the commands)"
    }`,
    2,
  );
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function fail(message: string, code = 1): never {
  process.stderr.write(`payintake: ${message}\n`);
  process.exit(code);
}

/** Listen errors that mean HOST names nothing this machine can listen on: its setting is wrong. */
// Not EAI_AGAIN: a resolver that failed for now says nothing about the setting (exit 1, retried).
const HOST_ERRORS = new Set(["ENOTFOUND", "EAI_NONAME", "EADDRNOTAVAIL"]);

async function serve(config: Config): Promise<void> {
  const { startServer } = await import("./server.js");
  const server = await startServer(config).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "EADDRINUSE")
      fail(
        `port ${config.port} on ${config.host} is in use (another payintake, or another program): stop it, or start on another port, e.g. PORT=${config.port === 65_535 ? 8081 : config.port + 1} npm start`,
      );
    // Ports below 1024 are the system's: a process without the right to them gets EACCES.
    if (err.code === "EACCES")
      fail(
        `port ${config.port} on ${config.host}: permission denied (ports below 1024 need root or the CAP_NET_BIND_SERVICE capability): start on a port above 1023, e.g. PORT=8080 npm start`,
      );
    if (err.code !== undefined && HOST_ERRORS.has(err.code))
      fail(
        `HOST: cannot listen on "${config.host}" (${err.code}): not a name that resolves, or not an address of this machine`,
        2,
      );
    throw err;
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`payintake: ${signal} received, finishing in-flight requests\n`);
    server.close({ drainMs: config.shutdownDrainMs }).then(
      () => process.exit(0),
      (err) => fail(`shutdown failed: ${(err as Error).message}`),
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  // Only now: whoever reads this line may signal at once, and a signal before the handlers above
  // kills the process outright (exit by SIGTERM, nothing drained).
  process.stdout.write(`payintake listening on ${server.url}\n`);
}

const CHANNEL_SIM_USAGE = `  payintake channel-sim [--port P] [--host H] [--behaviour accept|slow|decline|hang|fail] [--delay-ms D]
        [--payout-behaviour accept|paid|refuse|hang|twice|return] [--payout-delay-ms D]
      --port P        where it listens (default: a free port, printed)
      --host H        the address it listens on (default 127.0.0.1)
      --behaviour B   accept (default), slow, decline, hang or fail: how it answers each ask
      --delay-ms D    how long it waits before it accepts (accept: 0, slow: 3000)
      --payout-behaviour B
                      how it answers each payout (docs/channels.md, "Payouts by API"): accept
                      (default; paid D ms later), paid (at once, as FAST), refuse (AC01 wrong
                      IBAN), hang (pays, never answers), twice (pays, loses its first answer;
                      a repeat learns paid) or return (paid, returned AC04 D ms later)
      --payout-delay-ms D
                      accept: until paid (default 1000); return: until returned (default 3600000)`;

/**
 * `payintake channel-sim`: a channel partner for development and demos (docs/channels.md). Its
 * options are checked here; it starts when the run is called.
 */
async function channelSim(flags: Record<string, string | true>): Promise<Run> {
  const { behaviourFrom, payoutBehaviourFrom, startChannelSimulator } = await import(
    "../routing/channels/simulator.js"
  );
  const text = (name: string) => (typeof flags[name] === "string" ? (flags[name] as string) : undefined);
  const port = Number(text("port") ?? "0");
  const delay = text("delay-ms");
  if (!Number.isInteger(port) || port < 0 || port > 65_535) fail("--port must be a port number", 2);
  const payoutDelay = text("payout-delay-ms");
  let behaviour: ReturnType<typeof behaviourFrom>;
  let payoutBehaviour: ReturnType<typeof payoutBehaviourFrom>;
  try {
    behaviour = behaviourFrom(text("behaviour"), delay === undefined ? undefined : Number(delay));
    payoutBehaviour = payoutBehaviourFrom(
      text("payout-behaviour"),
      payoutDelay === undefined ? undefined : Number(payoutDelay),
    );
  } catch (err) {
    fail((err as Error).message, 2);
  }
  return async () => {
    const sim = await startChannelSimulator({
      port,
      host: text("host") ?? "127.0.0.1",
      behaviour,
      payoutBehaviour,
      onAsk: (ask) => print({ at: new Date(ask.at).toISOString(), ...ask.body }),
    });
    const stop = () => void sim.close().then(() => process.exit(0));
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
    // After the handlers, as for serve: a reader of this line may signal at once.
    const payouts = text("payout-behaviour") === undefined ? "" : `, ${payoutBehaviour.kind}`;
    process.stdout.write(`channel simulator listening on ${sim.url} (${behaviour.kind}${payouts})\n`);
  };
}

/**
 * The options of the commands that run here rather than through the admin API: any other is
 * refused before anything starts (`serve --rol api` started an instance of the wrong role).
 */
const SERVER_COMMAND_OPTIONS: Record<string, readonly string[]> = {
  serve: ["role"],
  migrate: [],
  "channel-sim": ["port", "host", "behaviour", "delay-ms", "payout-behaviour", "payout-delay-ms"],
  "master-key": ["generate", "operator"],
};

function onlyOptions(flags: Record<string, string | true>, known: readonly string[]): void {
  for (const [name, value] of Object.entries(flags)) {
    if (known.includes(name)) continue;
    const meant = closest(name, known);
    const setting = meant ? undefined : settingFor(name);
    const example = setting && typeof value === "string" ? ` (${setting}=${value})` : "";
    const hint = meant
      ? `; did you mean --${meant}?`
      : setting
        ? `; it is set by the environment variable ${setting}${example}`
        : "";
    fail(`unknown option --${name} for this command${hint}`, 2);
  }
}

/** The setting an option names (`--port`: PORT, `--data-dir`: PAYINTAKE_DATA_DIR), if one does. */
function settingFor(option: string): string | undefined {
  const name = option.toUpperCase().replaceAll("-", "_");
  return [name, `PAYINTAKE_${name}`].find((v) => CONFIG_VARIABLES.includes(v));
}

type Config = ReturnType<typeof parseConfig>;

/** A command whose words were checked: what it does once the configuration is read. */
type Run = (config: Config) => Promise<void>;

async function main(): Promise<void> {
  const { words, flags } = parseArgv(process.argv.slice(2));
  if (words.length === 0 && flags.help === true) {
    process.stdout.write(USAGE);
    return;
  }
  // No command is a usage error like a wrong one: said on stderr, exit 2, so a script notices.
  if (words.length === 0) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  // `payintake firm --help`, `payintake firm create --help`: that group's or that command's usage.
  const group = usageOf(words.slice(0, 2).join(" "));
  if (flags.help === true) {
    if (words[0] === "channel-sim") process.stdout.write(`${CHANNEL_SIM_USAGE}\n`);
    else process.stdout.write(group ? `${group}\n` : USAGE);
    return;
  }
  // The command's own words first, the configuration after: a mistyped option is named whatever
  // the environment holds, not behind "no admin token" or a setting it has nothing to do with.
  const run = await checkWords(words, flags);
  let config: Config;
  try {
    // A server also needs what its instances share: named in the same report as the rest.
    config = parseConfig(process.env, { serving: words[0] === "serve" });
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
  await run(config);
}

/**
 * Checks a command, its options and their values, and reads nothing else: no setting, no token,
 * no store. Each usage error exits 2 here; what the command then does is the run it returns.
 */
async function checkWords(words: string[], flags: Record<string, string | true>): Promise<Run> {
  const own = SERVER_COMMAND_OPTIONS[words[0] as string];
  if (own) onlyOptions(flags, own);
  switch (words[0]) {
    case "serve":
      return serveCommand(flags.role);
    case "channel-sim":
      return channelSim(flags);
    case "master-key":
      return masterKeyCommand(words, flags);
    case "migrate":
      return migrate;
    default:
      return operatorCommand(words, flags);
  }
}

function serveCommand(role: string | true | undefined): Run {
  if (role !== undefined && role !== "api" && role !== "worker" && role !== "all") {
    fail("--role must be api, worker or all", 2);
  }
  return async (config) => {
    if (role !== undefined && role !== "all" && config.databaseUrl === undefined) {
      fail("--role api and --role worker need DATABASE_URL (the embedded store runs one process: all)", 2);
    }
    return serve(role === undefined ? config : { ...config, role });
  };
}

async function masterKeyCommand(words: string[], flags: Record<string, string | true>): Promise<Run> {
  if (words[1] !== "rotate" || words.length > 2) unknownCommand(words);
  const { RotationRefused, readGenerateFlag, rotateCommand } = await import("./master-key-rotation.js");
  let by: string;
  try {
    readGenerateFlag(flags);
    // Run on the store directly, not through the admin API: recorded as the CLI, with the name given.
    by = `cli:${actor(flags)}`;
  } catch (err) {
    if (err instanceof UsageError) fail(err.message, 2);
    throw err;
  }
  return async (config) => {
    try {
      print(await rotateCommand(config, flags, by));
    } catch (err) {
      if (err instanceof UsageError) fail(err.message, 2);
      if (err instanceof RotationRefused) fail(err.message, err.exitCode);
      throw err;
    }
  };
}

async function migrate(config: Config): Promise<void> {
  const [{ openStore }, { createRepositories }, { fillPayerNameKeys }] = await Promise.all([
    import("../store/engine/open.js"),
    import("../store/index.js"),
    import("../jobs/name-keys.js"),
  ]);
  const store = await openStore(config);
  try {
    const applied = await store.migrate();
    // What `serve` would do next at start, so that a store migrated ahead of a deployment is ready.
    print({
      applied,
      payer_names_keyed: await fillPayerNameKeys(createRepositories(store).transactions),
      // Indexes this PostgreSQL lacks for want of an extension (docs/operations.md, Years of data).
      missing_indexes: await store.missingIndexes(),
    });
  } finally {
    await store.close();
  }
}

/** An operator command: its words checked by running it up to its call, then sent with the token. */
async function operatorCommand(words: string[], flags: Record<string, string | true>): Promise<Run> {
  // Most commands are two words (`firm create`); payouts' batches take three (`payout batch create`).
  const three = `${words[0]} ${words[1] ?? ""} ${words[2] ?? ""}`;
  const command = COMMANDS[three] ? three : `${words[0]} ${words[1] ?? ""}`;
  const handler = COMMANDS[command];
  if (!handler) unknownCommand(words);
  // `firm create --env`: the new firm's credentials as shell lines, read by every snippet.
  const env = command === "firm create" && flags.env === true;
  if (env) delete flags.env;
  let prepared: PreparedCommand;
  try {
    prepared = await prepareCommand(
      handler,
      words.slice(command.split(" ").length),
      flags,
      optionsOf(command),
    );
  } catch (err) {
    if (err instanceof UsageError) fail(err.message, 2);
    throw err;
  }
  return (config) => sendToServer(prepared, config, env);
}

async function sendToServer(prepared: PreparedCommand, config: Config, env: boolean): Promise<void> {
  const tokenFile = resolve(config.dataDir, "admin.token");
  const token = config.adminToken ?? readLocalSecret(config.dataDir, "admin.token");
  if (!token)
    fail(
      `no admin token: set PAYINTAKE_ADMIN_TOKEN as the server has it, or PAYINTAKE_DATA_DIR to the embedded server's data directory (looked for ${tokenFile})`,
      2,
    );
  let result: { status: number; json: unknown };
  try {
    result = await prepared.send(createAdminClient(config.serverUrl, token));
  } catch (err) {
    if (err instanceof UnreadableFile) fail(err.message);
    fail(
      `cannot reach the server at ${config.serverUrl} (${(err as Error).message}): is it running? PAYINTAKE_URL says where it listens (unset: http://HOST:PORT)`,
    );
  }
  if (result.json instanceof RawOutput) writeRaw(result.json);
  else if (env && result.status < 400) printEnv(config.serverUrl, result.json);
  else print(result.json);
  writeWarnings(result.json);
  if (result.status >= 400) process.exitCode = 1;
  // A token read from a file may be another server's: the embedded one run from this folder, where
  // the server asked runs on PostgreSQL or with another data directory. Said on stderr, where it
  // does not disturb the one JSON object on stdout.
  if (result.status === 401 && config.adminToken === undefined)
    process.stderr.write(
      `the admin token was read from ${tokenFile}; a server started with PAYINTAKE_ADMIN_TOKEN or another PAYINTAKE_DATA_DIR needs the same here\n`,
    );
}

/** A file as the server sent it, on stdout; what the operator must know of it on stderr. */
function writeRaw(raw: RawOutput): void {
  process.stdout.write(raw.bytes);
  for (const notice of raw.notices) process.stderr.write(`payintake: ${notice.message}\n`);
}

/**
 * A created firm as `export` lines for the shell, single-quoted: pasted (or `eval`ed), they set what
 * the README's and the integration guide's snippets read. Said once, like the JSON's secret.
 */
function printEnv(serverUrl: string, json: unknown): void {
  const firm = json as { id?: number; api_key?: string; secret_key?: string };
  const quote = (v: string) => `'${v.replace(/'/g, "'\\''")}'`;
  process.stdout.write(
    [
      `export PAYINTAKE_URL=${quote(serverUrl)}`,
      `export PAYINTAKE_API_KEY=${quote(String(firm.api_key))}`,
      `export PAYINTAKE_SECRET_KEY=${quote(String(firm.secret_key))}`,
      "",
    ].join("\n"),
  );
  process.stderr.write(`firm ${firm.id} created; its secret key is shown only here\n`);
}

/**
 * What the answer warns of (a live firm's plain-http webhook: management/views.ts), one line each on
 * stderr, where a person running the command sees it and a script reading stdout is not disturbed.
 */
function writeWarnings(json: unknown): void {
  const warnings = (json as { warnings?: unknown } | null)?.warnings;
  if (!Array.isArray(warnings)) return;
  for (const w of warnings) if (typeof w === "string") process.stderr.write(`warning: ${w}\n`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) fail(err.message, 2);
  fail((err as Error).message ?? String(err));
});
