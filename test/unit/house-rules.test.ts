import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module script, without types
import { breaches, partOf } from "../../scripts/check-imports.mjs";
// @ts-expect-error: a plain ES module script, without types
import { importGraph } from "../../scripts/import-graph.mjs";

/** The house rules of docs/ARCHITECTURE.md, as `npm run check` applies them. */
describe("house rules", () => {
  it("hold for the tree as it is", () => {
    expect(breaches(importGraph())).toEqual([]);
  });

  it("name an import circle, type-only imports included", () => {
    const graph = new Map([
      ["src/store/a.ts", ["src/store/b.ts"]],
      ["src/store/b.ts", ["src/store/a.ts"]],
    ]);
    expect(breaches(graph)).toEqual(["import circle: src/store/a.ts -> src/store/b.ts"]);
  });

  it("name an import across the layers", () => {
    const graph = new Map([
      ["src/intake/intake.ts", ["src/routing/router.ts"]],
      ["src/routing/router.ts", ["src/intake/fields.ts"]],
      ["src/intake/fields.ts", []],
    ]);
    expect(breaches(graph)).toEqual([
      "src/routing/router.ts imports src/intake/fields.ts: routing may not import intake",
    ]);
  });

  it("know every folder of src/ as a part", () => {
    for (const file of importGraph().keys()) expect(partOf(file)).not.toBe("");
    expect(partOf("src/payment-page/routes.ts")).toBe("payment-page");
    expect(partOf("web/console/main.tsx")).toBe("web/console");
  });
});

describe("function length", () => {
  it("is within the limit everywhere in src/ and web/", async () => {
    // @ts-expect-error: a plain ES module script, without types
    const { longFunctions } = await import("../../scripts/check-function-length.mjs");
    expect(longFunctions()).toEqual([]);
  });

  it("is measured from a function's first line to its last", async () => {
    // @ts-expect-error: a plain ES module script, without types
    const { functionLengths } = await import("../../scripts/check-function-length.mjs");
    const body = Array.from({ length: 151 }, (_, i) => `  const a${i} = ${i};`).join("\n");
    const found = functionLengths(
      "x.ts",
      `export function tooLong() {\n${body}\n}\nconst short = () => 1;\n`,
    );
    expect(found).toEqual([
      { name: "tooLong", line: 1, lines: 153 },
      { name: "short", line: 154, lines: 1 },
    ]);
  });
});
