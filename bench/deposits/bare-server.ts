import Fastify from "fastify";

/**
 * The reference: the cheapest useful Fastify endpoint on this machine. One POST route on the deposit
 * path that lets Fastify parse the JSON body and answers a small JSON object; no logger, no
 * database, no authentication. Run as a child process by bench/deposits/run.ts; prints its URL.
 */
const app = Fastify({ logger: false });

app.post("/paymentapi/v1/deposits", async () => ({ success: true, message: "ok" }));

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

const url = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`bare listening on ${url}\n`);
