import pg from "pg";

/**
 * Tells every instance on one PostgreSQL that operators changed something it caches (firms with
 * their secrets, the account pool), through LISTEN/NOTIFY: a rotated secret stops working on every
 * instance at once, not when each one's cache runs out. The caches' short lifetimes stay as the
 * bound when a notice is missed: while the listening connection is down, and once more when it is
 * back (everything is dropped then, as anything may have changed meanwhile). `queue`: the pending
 * queues changed, for the consoles listening on each instance (console/queue-notices.ts).
 */
export type ChangeTopic = "firms" | "accounts" | "queue";
const TOPICS: readonly string[] = ["firms", "accounts", "queue"] satisfies ChangeTopic[];

export interface ChangeFeed {
  /** Tells every instance (this one included) that `topic` changed; after the change committed. */
  announce(topic: ChangeTopic): Promise<void>;
  /** `all` when notices may have been missed (the listening connection came back). */
  onChange(handler: (topic: ChangeTopic | "all") => void): void;
  close(): Promise<void>;
}

const CHANNEL = "payintake_changes";
const RECONNECT_MS = 1_000;

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
    c.on("notification", (msg) => {
      if (msg.channel === CHANNEL && msg.payload !== undefined && TOPICS.includes(msg.payload))
        tell(msg.payload as ChangeTopic);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
      if (closed) return void (await c.end());
      client = c;
      tell("all");
    } catch {
      lost();
    }
  }

  return {
    async announce(topic) {
      await pool.query("SELECT pg_notify($1, $2)", [CHANNEL, topic]);
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
