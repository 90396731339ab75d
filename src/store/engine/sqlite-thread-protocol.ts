/**
 * Messages between the embedded store's thread (sqlite-thread.ts) and the server's main thread
 * (sqlite-group-commit.ts). The main thread sends arrays of operations, run in order; the thread
 * answers each array with an array of replies in the same order, and sends the control messages
 * (open, open-failed, committed, fatal) on their own.
 */
export interface SqliteThreadInit {
  file: string;
  /** Hold the file lock for the life of the connection (the server); tests that watch from a second connection do not. */
  exclusive: boolean;
}

export type ThreadOp =
  | {
      k: "query";
      id: number;
      sql: string;
      /** Set for statements prepared once (store/engine/prepared.ts): the thread keeps them by this number. */
      sid?: number;
      params: readonly unknown[];
    }
  | { k: "unit-begin" | "close"; id: number }
  | {
      k: "unit-release" | "unit-rollback";
      id: number;
      /** Another unit is waiting for the connection: its statements may share this batch's commit. */
      more: boolean;
    }
  | { k: "script"; id: number; sql: string };

export type ThreadReply =
  | { t: "rows"; id: number; batch: number; rows: unknown[] }
  | { t: "changes"; id: number; batch: number; changes: number; insertId: bigint }
  | { t: "done"; id: number; batch: number }
  | { t: "error"; id: number; batch: number; code: string | undefined; message: string }
  | { t: "open" }
  | { t: "open-failed"; code: string; message: string }
  | { t: "committed"; batch: number }
  | { t: "fatal"; message: string };
