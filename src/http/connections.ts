/**
 * The connections a stopping server closes itself. Node's own close ends the connections that are
 * idle when the listener closes, but not every connection without a request in progress counts as
 * idle to it: one whose live stream its client had given up (a console's /ops/api/events) stayed
 * open until its keep-alive ran out (PAYINTAKE_KEEP_ALIVE_TIMEOUT_MS, 65 s by default), and the
 * stop waited that long. So the server keeps its own count of requests in progress per connection:
 * once it stops, a connection with none closes at once, and one with some as soon as they are
 * answered.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";

export interface Connections {
  /** From now on: no connection stays open without a request in progress. */
  closeWhenIdle(): void;
}

export function trackConnections(server: Server): Connections {
  /** Each open connection and its requests in progress. */
  const open = new Map<Socket, number>();
  let closing = false;
  server.on("connection", (socket: Socket) => {
    open.set(socket, 0);
    socket.once("close", () => open.delete(socket));
  });
  server.on("request", (request, response) => {
    const socket: Socket = request.socket;
    if (!open.has(socket)) return;
    open.set(socket, (open.get(socket) ?? 0) + 1);
    response.once("close", () => {
      const left = (open.get(socket) ?? 1) - 1;
      if (!open.has(socket)) return;
      open.set(socket, left);
      // Ended once what was written has left: the answer is never cut.
      if (closing && left === 0) socket.destroySoon();
    });
  });
  return {
    closeWhenIdle() {
      closing = true;
      for (const [socket, requests] of open) if (requests === 0) socket.destroySoon();
    },
  };
}
