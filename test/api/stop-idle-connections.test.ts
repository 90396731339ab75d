import { request } from "undici";
import { expect, it } from "vitest";
import { consoleLogin } from "../support/console.js";
import { STORES, startTestServer } from "../support/harness.js";

/**
 * A stop does not wait for the keep-alive of connections that have no request in progress. After a
 * console's live stream was given up by its client, its connection held a stop for the whole
 * keep-alive (65 s by default): Node closes only the connections it counts as idle.
 */
it("a stop closes the connections without a request in progress at once, not at their keep-alive's end", async () => {
  const server = await startTestServer(STORES[0] ?? "sqlite", {
    LOG_LEVEL: "warn",
    PAYINTAKE_CONSOLE_HEARTBEAT_MS: "300",
  });
  const created = await server.admin("POST", "/admin/v1/operators", {
    email: "op@ops.example",
    role: "operator",
    password: "op@ops.example-password-123",
  });
  expect(created.status).toBe(201);
  const { cookie } = await consoleLogin(server, "op@ops.example", "op@ops.example-password-123");
  const stream = await request(`${server.url}/ops/api/events`, { headers: { cookie } });
  expect(stream.statusCode).toBe(200);
  for await (const _ of stream.body) break;
  stream.body.destroy();
  // Heartbeats go on meanwhile: the stream's end is seen by the server, then the stop comes.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const started = Date.now();
  await server.close();
  expect(Date.now() - started).toBeLessThan(5_000);
});
