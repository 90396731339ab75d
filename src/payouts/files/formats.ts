/**
 * The formats a batch's file can be asked for by name (the CLI's --format, the console's choice):
 * the two pain.001 versions, then the bank templates by code.
 */

import type { BankTemplate } from "./bank-template.js";
import type { BatchFileInput, FileChunks } from "./batch-file.js";
import { PAIN001_VERSIONS, type Pain001Version, pain001File } from "./pain001.js";
import { templateFile } from "./template-file.js";

export type BatchFileFormat =
  | { kind: "pain.001"; version: Pain001Version }
  | { kind: "template"; template: BankTemplate };

/** The format named `name`, a pain.001 version or a template's code; undefined when none is. */
export function findBatchFileFormat(
  name: string,
  templates: readonly BankTemplate[],
): BatchFileFormat | undefined {
  const version = PAIN001_VERSIONS.find((v) => v === name);
  if (version) return { kind: "pain.001", version };
  const template = templates.find((t) => t.code === name);
  return template ? { kind: "template", template } : undefined;
}

export function batchFile(input: BatchFileInput, format: BatchFileFormat): FileChunks {
  return format.kind === "pain.001"
    ? pain001File(input, format.version)
    : templateFile(input, format.template);
}

/** The name and media type a download is given: the message id, so the file names its batch. */
export function batchFileType(
  input: BatchFileInput,
  format: BatchFileFormat,
): { fileName: string; contentType: string } {
  if (format.kind === "pain.001") {
    return {
      fileName: `${input.messageId}.${format.version}.xml`,
      contentType: "application/xml; charset=utf-8",
    };
  }
  const { code, encoding, separator } = format.template;
  const ext = separator === "\t" ? "txt" : "csv";
  const type = separator === "\t" ? "text/tab-separated-values" : "text/csv";
  return { fileName: `${input.messageId}.${code}.${ext}`, contentType: `${type}; charset=${encoding}` };
}
