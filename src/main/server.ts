import pino from "pino";
import type { Config } from "../config/config.js";
import { trackConnections } from "../http/connections.js";
import { minutePurges, runPurges } from "../jobs/purges.js";
import { buildApp } from "./app.js";
import { serializeError } from "./log-errors.js";
import { prettyDestination, prettyLogs } from "./log-format.js";
import { wire } from "./wiring.js";

export interface RunningServer {
  url: string;
  /**
   * Graceful stop. For `drainMs` the server keeps accepting (connections the OS already queued would
   * otherwise be reset) and answers with `Connection: close`; then it stops listening, finishes
   * in-flight requests and closes the store.
   */
  close(opts?: { drainMs?: number }): Promise<void>;
}

const NONCE_PURGE_MS = 60_000;

/** Log redaction is the last line of defence; the code already avoids logging these fields. */
export function createLogger(level: string, destination?: pino.DestinationStream) {
  const options: pino.LoggerOptions = {
    level,
    // Driver errors quote rows and statements (a full IBAN, names): only their names and codes are kept.
    serializers: { err: serializeError },
    redact: {
      paths: [
        "req.headers.authorization",
        'req.headers["x-signature"]',
        'req.headers["x-api-key"]',
        "secret_key",
        "*.secret_key",
        "iban",
        "*.iban",
        "national_id",
        "*.national_id",
        // A request the HTTP parser refused carries its raw bytes (clientErrorHandler never logs it).
        "err.rawPacket",
        "*.rawPacket",
      ],
      censor: "[redacted]",
    },
    hooks: {
      // Fastify's own "Server listening at" line: the CLI prints the one to wait for, once its
      // signal handlers are set (main/cli.ts), and a person reading both saw the news twice.
      logMethod(args, method) {
        if (typeof args[0] === "string" && args[0].startsWith("Server listening at ")) return;
        method.apply(this, args);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Starts the HTTP server and the background jobs; `close` drains requests, then closes the store. */
export interface StartOptions {
  /** The clock every time-dependent rule reads; tests move it. */
  now?: () => number;
  /** Correct that clock to the database server's (on by default unless `now` is given). */
  clockFromDatabase?: boolean;
  /** Where logs go (stdout by default); tests capture them to prove no secret is ever logged. */
  logDestination?: pino.DestinationStream;
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const destination =
    opts.logDestination ??
    (prettyLogs(config.logFormat, process.stdout.isTTY === true)
      ? prettyDestination(process.stdout)
      : undefined);
  const logger = createLogger(config.logLevel, destination);
  const runtime = await wire(config, logger, { now: opts.now, clockFromDatabase: opts.clockFromDatabase });
  for (const w of runtime.warnings) logger.warn(w);
  const app = buildApp(
    runtime.ctx,
    runtime.backoffice,
    runtime.consoleService,
    logger,
    config.trustProxy,
    config.role,
  );
  const connections = trackConnections(app.server);

  const purges = minutePurges(runtime.ctx.repos, () => runtime.ctx.now());
  let purging: Promise<void> | undefined;
  let stopping = false;
  const purge = setInterval(() => {
    runtime.ctx.repos.capHolds
      .purgeExpired(runtime.ctx.now())
      .catch((err) => logger.error({ err }, "daily cap hold purge failed"));
    runtime.consoleService
      .purgeEndedSessions()
      .catch((err) => logger.error({ err }, "console session purge failed"));
    // One minute's batches at a time: a slow minute does not start the next beside it.
    if (purging) return;
    purging = runPurges(purges, logger, () => stopping).finally(() => {
      purging = undefined;
    });
  }, NONCE_PURGE_MS);
  purge.unref();

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    clearInterval(purge);
    runtime.clock.stop();
    await runtime.depositRouting.close();
    await runtime.payoutChannels.client.close();
    await runtime.sender.close();
    await runtime.store.close();
    throw err;
  }
  // API-only instances leave the outbox and auto-cancel to the workers; their decisions are
  // picked up by a worker's next poll (PAYINTAKE_CALLBACK_POLL_MS).
  if (config.role !== "api") {
    runtime.outbox.start();
    runtime.autoCancel.start();
    runtime.feedWatch.start();
    runtime.payoutChannels.watch.start();
    runtime.nameKeys.start();
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    close(closeOpts = {}) {
      closing ??= (async () => {
        // Every answer from now on closes its connection. Node closes the connections idle when the
        // listener closes, not those that fall idle after: with a keep-alive of 65 s (above a load
        // balancer's), a request in flight at that moment would keep the stop waiting for that long.
        runtime.ctx.draining = true;
        if (closeOpts.drainMs) await new Promise((resolve) => setTimeout(resolve, closeOpts.drainMs));
        clearInterval(purge);
        stopping = true;
        connections.closeWhenIdle();
        await app.close();
        // Sends in flight finish and are recorded; anything not sent stays due in the outbox.
        await runtime.autoCancel.stop();
        runtime.feedWatch.stop();
        // Questions in flight are cut short: their payouts stay sent, asked again at a later round.
        const watchStopped = runtime.payoutChannels.watch.stop();
        await runtime.payoutChannels.client.close();
        await watchStopped;
        await runtime.nameKeys.stop();
        runtime.ctx.queueNotices.stop();
        await runtime.outbox.stop();
        await runtime.sender.close();
        await runtime.depositRouting.close();
        runtime.ctx.rateLimiter.stop?.();
        runtime.clock.stop();
        // A purge run ends after its batch in flight: the store is not closed under it.
        await purging;
        await runtime.store.close();
      })();
      return closing;
    },
  };
}
