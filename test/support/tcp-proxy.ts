import type { AddressInfo } from "node:net";
import { connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of PostgreSQL that can play a database restart for one service without
 * touching the PostgreSQL every other test uses: `down()` cuts every connection and refuses new
 * ones, `up()` lets them through again. `stallOn(text)` plays an instance that freezes (a paused
 * container, a network partition) at a chosen moment: the first connection to send a message
 * containing `text` stops there, that message and all after it kept from the server, without a
 * word to either side; it resolves once that happened. What the server then says or does on that
 * connection (ending it) still reaches the client.
 */
export interface TcpProxy {
  port: number;
  down(): void;
  up(): void;
  stallOn(text: string): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let accepting = true;
  let stall: { text: string; stalled(): void } | undefined;
  const server = createServer((client) => {
    if (!accepting) return void client.destroy();
    const upstream = connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.on("data", (chunk: Buffer) => {
      if (stall && chunk.includes(stall.text)) {
        const { stalled } = stall;
        stall = undefined;
        // Nothing more from this client reaches the server; the client is not told.
        client.removeAllListeners("data");
        client.pause();
        stalled();
        return;
      }
      upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    down() {
      accepting = false;
      for (const s of open) s.destroy();
      open.clear();
    },
    up() {
      accepting = true;
    },
    stallOn(text) {
      return new Promise<void>((stalled) => {
        stall = { text, stalled };
      });
    },
    close() {
      accepting = false;
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
