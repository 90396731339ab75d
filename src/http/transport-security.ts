import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * Strict-Transport-Security on the pages browsers load (the console, the payment page), when the
 * request came over https: directly, or through a trusted proxy that says so (X-Forwarded-Proto,
 * PAYINTAKE_TRUST_PROXY). The browser then never tries plain http for this host for a year, so a
 * network that strips https cannot show an operator or a payer a copy. Not on plain http: there it
 * means nothing, and on a development host it would lock the name to https.
 */
export function transportSecurity(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (request.protocol === "https") reply.header("strict-transport-security", "max-age=31536000");
  return reply;
}
