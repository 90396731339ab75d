import type { AddressInfo } from "node:net";
import { connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of PostgreSQL that can play a database restart for one service without
 * touching the PostgreSQL every other test uses: `down()` cuts every connection and refuses new
 * ones, `up()` lets them through again.
 */
export interface TcpProxy {
  port: number;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let accepting = true;
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
    client.pipe(upstream);
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
    close() {
      accepting = false;
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
