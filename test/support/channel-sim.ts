import { createHmac } from "node:crypto";
import {
  type ChannelSimulator,
  type SimAsk,
  type SimBehaviour,
  startChannelSimulator,
} from "../../src/routing/channels/simulator.js";

/** The channel simulator (src/routing/channels/simulator.ts), with a check of our signature on its asks. */
export type { SimBehaviour };
export type Ask = SimAsk;

export interface ChannelSim extends ChannelSimulator {
  /** True when the ask's X-Signature verifies with this secret over timestamp LF body. */
  verify(ask: Ask, secret: string): boolean;
}

export async function startChannelSim(initial: SimBehaviour = { kind: "accept" }): Promise<ChannelSim> {
  const sim = await startChannelSimulator({ behaviour: initial });
  return Object.assign(sim, {
    verify(ask: Ask, secret: string) {
      const expected = createHmac("sha256", secret)
        .update(`${ask.headers["x-timestamp"]}\n${ask.raw}`)
        .digest("hex");
      return ask.headers["x-signature"] === expected;
    },
  });
}
