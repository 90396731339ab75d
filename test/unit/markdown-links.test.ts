import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Every relative link target written in a committed Markdown file, outside code blocks. */
function relativeLinks(): { file: string; target: string }[] {
  const files = execFileSync("git", ["ls-files", "*.md"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  return files.flatMap((file) => {
    const text = readFileSync(join(ROOT, file), "utf8").replace(/```[\s\S]*?```/g, "");
    return [...text.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)]
      .map((m) => m[1] as string)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
      .map((target) => ({ file, target }));
  });
}

describe("the Markdown files' links", () => {
  it("finds the links it checks", () => {
    expect(relativeLinks().length).toBeGreaterThan(50);
  });

  it("lead to a file or folder of the repository", () => {
    const nowhere = relativeLinks().filter(({ file, target }) => {
      const path = decodeURIComponent(target.split("#")[0] ?? "");
      const from = path.startsWith("/") ? ROOT : join(ROOT, dirname(file));
      return path !== "" && !existsSync(join(from, path));
    });
    expect(nowhere).toEqual([]);
  });
});
