import { readFileSync } from "node:fs";

/**
 * The connections a server on this machine has accepted on `port`, each with the bytes that
 * arrived for it and that its process has not read yet (Linux's /proc/net/tcp and tcp6). Node
 * parses what it reads at once, so a connection with nothing unread has had its request's bytes
 * so far parsed: a state another process's test can wait for.
 */
export function unreadByServer(port: number): number[] {
  const unread: number[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      const [local, state, queues] = [f[1], f[3], f[4]];
      // 01: established; the local side is the server's when its port is the listening one.
      if (!local || state !== "01" || Number.parseInt(local.split(":")[1] ?? "", 16) !== port) continue;
      unread.push(Number.parseInt(queues?.split(":")[1] ?? "0", 16));
    }
  }
  return unread;
}
