import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Summarises V8 .cpuprofile files (node --cpu-prof) without a browser: where the server process spent
 * its samples, by function (self and inclusive time) and by area (our src/, each npm package, node
 * internals, GC, idle).
 */
interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  bySelf: { name: string; ms: number }[];
  byInclusive: { name: string; ms: number }[];
  byArea: { name: string; ms: number }[];
}

function location(frame: CallFrame, root: string): string {
  if (frame.url === "") return "";
  let path = frame.url;
  if (path.startsWith("file://")) {
    try {
      path = relative(root, fileURLToPath(path));
    } catch {
      // keep the URL as it is
    }
  }
  return `${path}:${frame.lineNumber + 1}`;
}

function frameKey(frame: CallFrame, root: string): string {
  const where = location(frame, root);
  return `${frame.functionName || "(anonymous)"}${where ? ` ${where}` : ""}`;
}

function area(frame: CallFrame, root: string): string {
  const name = frame.functionName;
  if (frame.url === "") {
    if (name === "(garbage collector)" || name === "(idle)" || name === "(program)") return name;
    return "(native / builtins)";
  }
  if (frame.url.startsWith("node:")) return "node internals";
  const where = location(frame, root);
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where);
  if (pkg?.[1]) return `npm: ${pkg[1]}`;
  const src = /^(?:dist|src)\/([^/]+\/[^/:]+)/.exec(where);
  if (src?.[1]) return `payintake: ${src[1].replace(/\.(js|ts)$/, "")}`;
  return where.split(":")[0] ?? where;
}

function withoutIdle(map: Map<string, number>): Map<string, number> {
  const copy = new Map(map);
  copy.delete("(idle)");
  return copy;
}

function top(map: Map<string, number>, n: number): { name: string; ms: number }[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ name, ms }));
}

export function summariseProfile(file: string, root: string, n = 20): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const msPerSample = profile.samples.length > 0 ? totalMs / profile.samples.length : 0;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);

  const self = new Map<string, number>();
  const areas = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let idleMs = 0;

  // Depth-first: inclusive time counts a function once per stack, however often it recurses.
  const visit = (id: number, onStack: Map<string, number>): number => {
    const node = byId.get(id);
    if (!node) return 0;
    const key = frameKey(node.callFrame, root);
    const ownMs = (hits.get(id) ?? 0) * msPerSample;
    if (ownMs > 0) {
      self.set(key, (self.get(key) ?? 0) + ownMs);
      const a = area(node.callFrame, root);
      areas.set(a, (areas.get(a) ?? 0) + ownMs);
      if (node.callFrame.functionName === "(idle)") idleMs += ownMs;
    }
    onStack.set(key, (onStack.get(key) ?? 0) + 1);
    let subtree = ownMs;
    for (const child of node.children ?? []) subtree += visit(child, onStack);
    const depth = (onStack.get(key) ?? 1) - 1;
    if (depth === 0) {
      onStack.delete(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + subtree);
    } else {
      onStack.set(key, depth);
    }
    return subtree;
  };
  const root0 = profile.nodes[0];
  if (root0) visit(root0.id, new Map());
  inclusive.delete(frameKey(root0?.callFrame ?? { functionName: "", url: "", lineNumber: 0 }, root));

  return {
    totalMs,
    idleMs,
    bySelf: top(withoutIdle(self), n),
    byInclusive: top(withoutIdle(inclusive), n),
    byArea: top(areas, n),
  };
}

export function profilesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(dir, f));
}

export function formatSummary(title: string, s: ProfileSummary): string {
  const busy = s.totalMs - s.idleMs;
  const pct = (ms: number) => `${((100 * ms) / (busy || 1)).toFixed(1).padStart(5)}%`;
  const lines = [
    `### ${title}: ${(s.totalMs / 1000).toFixed(1)} s profiled, ${(busy / 1000).toFixed(1)} s not idle (percentages are of non-idle time)`,
    "",
    "By area (self time):",
    ...s.byArea.map((e) => `  ${pct(e.ms)}  ${e.name}`),
    "",
    "Top functions by self time:",
    ...s.bySelf.map((e) => `  ${pct(e.ms)}  ${e.name}`),
    "",
    "Top functions by inclusive time:",
    ...s.byInclusive.map((e) => `  ${pct(e.ms)}  ${e.name}`),
  ];
  return lines.join("\n");
}
