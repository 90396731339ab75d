import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

/**
 * axe-core in a test's page: the WCAG 2.1 A and AA rules, run on what the page shows now.
 *
 * axe runs in a world of its own beside the page's scripts (Chromium's isolated world, as a
 * browser extension's script does): the same document, but its own globals. So the page's
 * Content-Security-Policy, which governs the page's scripts, is left as the server sends it; the
 * page never sees an `axe` of its own; and a test that stopped the page's clock (page.clock) does
 * not stop axe's timers with it. Nothing is fetched from the network.
 */
const SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const OPTIONS = {
  runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
  resultTypes: ["violations"],
};
/** Run in the isolated world: each violating element as one line, `rule (impact) help: selector | html`. */
const RUN = `axe.run(document, ${JSON.stringify(OPTIONS)}).then((r) =>
  r.violations.flatMap((v) => v.nodes.map((n) => {
    const html = n.html.replace(/\\s+/g, " ");
    const excerpt = html.length > 160 ? html.slice(0, 157) + "..." : html;
    return v.id + " (" + (v.impact || n.impact || "?") + ") " + v.help + ": " + n.target.join(" ") + " | " + excerpt;
  })))`;

/**
 * Every violation on the page as it is now, one line per element, so that a failing
 * `expect(...).toEqual([])` names the rule, the element and what is wrong. Elements hidden from
 * everyone are left out by axe itself.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { frameTree } = await cdp.send("Page.getFrameTree");
    const { executionContextId: contextId } = await cdp.send("Page.createIsolatedWorld", {
      frameId: frameTree.frame.id,
      worldName: "axe",
    });
    const loaded = await cdp.send("Runtime.evaluate", { expression: SOURCE, contextId });
    if (loaded.exceptionDetails) throw new Error(`axe-core did not load: ${loaded.exceptionDetails.text}`);
    const ran = await cdp.send("Runtime.evaluate", {
      expression: RUN,
      contextId,
      awaitPromise: true,
      returnByValue: true,
    });
    if (ran.exceptionDetails)
      throw new Error(
        `axe-core failed: ${ran.exceptionDetails.exception?.description ?? ran.exceptionDetails.text}`,
      );
    return ran.result.value as string[];
  } finally {
    await cdp.detach();
  }
}
