/**
 * Tells every instance on one PostgreSQL that operators changed something it caches (firms with
 * their secrets, the account pool), through LISTEN/NOTIFY: a rotated secret stops working on every
 * instance at once, not when each one's cache runs out. The caches' short lifetimes stay as the
 * bound when a notice is missed: while the listening connection is down, and once more when it is
 * back (everything is dropped then, as anything may have changed meanwhile). `queue`: the pending
 * queues changed, for the consoles listening on each instance (decisions/queue-notices.ts).
 * `channel-down:<id>`: an instance's breaker opened for that channel (routing/router.ts heardDown).
 * `callbacks`: callbacks were queued (a decision): every worker looks for due ones at once instead
 * of at its next poll (main/callback-notices.ts).
 */
import { createHash } from "node:crypto";
import pg from "pg";

export type ChangeTopic = "firms" | "accounts" | "queue" | "callbacks" | `channel-down:${number}`;
const TOPICS: readonly string[] = ["firms", "accounts", "queue", "callbacks"] satisfies ChangeTopic[];
const isTopic = (payload: string): payload is ChangeTopic =>
  TOPICS.includes(payload) || /^channel-down:[1-9][0-9]{0,14}$/.test(payload);

export interface ChangeFeed {
  /** Tells every instance (this one included) that `topic` changed; after the change committed. */
  announce(topic: ChangeTopic): Promise<void>;
  /** `all` when notices may have been missed (the listening connection came back). */
  onChange(handler: (topic: ChangeTopic | "all") => void): void;
  close(): Promise<void>;
}

const CHANNEL = "payintake_changes";
const RECONNECT_MS = 1_000;

/**
 * NOTIFY reaches every session of the database, whatever its schema: deployments that share one
 * database, one schema each, would hear each other's notices (needless cache drops, and consoles
 * told of other deployments' queues). Each schema gets a channel of its own; `public` keeps the
 * plain name, so instances from before this split still hear and are heard there.
 */
export function channelFor(schema: string): string {
  if (schema === "public") return CHANNEL;
  return `${CHANNEL}_${createHash("sha256").update(schema).digest("hex").slice(0, 16)}`;
}

/** The embedded store has one process: nothing to tell anyone. */
export const noChangeFeed: ChangeFeed = {
  announce: async () => {},
  onChange: () => {},
  close: async () => {},
};

export function createPgChangeFeed(url: string, pool: pg.Pool): ChangeFeed {
  const handlers: ((topic: ChangeTopic | "all") => void)[] = [];
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  let started = false;

  // The schema the pool's connections work in (the URL's search_path), asked once.
  let channel: Promise<string> | undefined;
  const channelName = (): Promise<string> => {
    channel ??= pool.query<{ schema: string }>("SELECT current_schema() AS schema").then(
      (r) => channelFor(r.rows[0]?.schema ?? "public"),
      (err: unknown) => {
        channel = undefined;
        throw err;
      },
    );
    return channel;
  };

  const tell = (topic: ChangeTopic | "all") => {
    for (const handler of handlers) handler(topic);
  };

  function later(): void {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void listen();
    }, RECONNECT_MS);
    retry.unref();
  }

  async function listen(): Promise<void> {
    if (closed) return;
    const c = new pg.Client({ connectionString: url, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    const lost = () => {
      if (client === c) client = undefined;
      c.removeAllListeners();
      // A late error from a dropped client must not crash the process.
      c.on("error", () => {});
      c.end().catch(() => {});
      later();
    };
    c.on("error", lost);
    c.on("end", lost);
    try {
      const name = await channelName();
      c.on("notification", (msg) => {
        if (msg.channel === name && msg.payload !== undefined && isTopic(msg.payload)) tell(msg.payload);
      });
      await c.connect();
      // Letters, digits and underscores only (channelFor): no quoting needed.
      await c.query(`LISTEN ${name}`);
      if (closed) return void (await c.end());
      client = c;
      tell("all");
    } catch {
      lost();
    }
  }

  return {
    async announce(topic) {
      await pool.query("SELECT pg_notify($1, $2)", [await channelName(), topic]);
    },
    onChange(handler) {
      handlers.push(handler);
      if (!started) {
        started = true;
        void listen();
      }
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners();
        c.on("error", () => {});
        await c.end().catch(() => {});
      }
    },
  };
}
