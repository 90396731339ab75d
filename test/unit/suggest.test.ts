import { describe, expect, it } from "vitest";
import { closest } from "../../src/main/suggest.js";

describe("closest: the CLI's did-you-mean", () => {
  const commands = ["firm", "account", "channel", "provider", "operator", "statement", "serve", "migrate"];
  const flags = ["webhook-url", "name", "provider", "legacy-http", "deposit-min", "deposit-max", "sandbox"];
  it.each([
    ["frim", commands, "firm"],
    ["acount", commands, "account"],
    ["serv", commands, "serve"],
    ["webhook", flags, "webhook-url"],
    ["deposit-mn", flags, "deposit-min"],
    ["sandbx", flags, "sandbox"],
  ])("%s → %s", (word, candidates, meant) => {
    expect(closest(word, candidates)).toBe(meant);
  });
  it("guesses nothing when nothing is close, or two are equally close", () => {
    expect(closest("frobnicate", commands)).toBeUndefined();
    expect(closest("deposit-m", flags)).toBeUndefined();
    expect(closest("firm", commands)).toBeUndefined();
  });
});
