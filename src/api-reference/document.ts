import { merchantPaths } from "./merchant-paths.js";
import { SIGNING } from "./openapi-parts.js";
import { componentSchemas } from "./schemas.js";

/**
 * The OpenAPI 3.1 document of /paymentapi/v1, built from the field schemas the server validates
 * with (intake/fields.ts metadata, intake/requests.ts order) and the rejection table it answers
 * with; served at /openapi.json and rendered at /docs. test/api/openapi.test.ts sends requests
 * built from this document to the server and fails when the two disagree.
 */
export function openApiDocument() {
  return {
    openapi: "3.1.0",
    info: {
      title: "payintake merchant API",
      version: "1",
      description: `Signed HTTP API for deposits (bank transfer: FAST, EFT, havale), withdrawals, queries and the firm's balance.\n\n## Signing\n\n${SIGNING}`,
    },
    // Relative: the document is served by the server it describes.
    servers: [{ url: "/" }],
    security: [{ ApiKey: [], Signature: [] }],
    tags: [
      { name: "Deposits" },
      { name: "Withdrawals" },
      { name: "Transactions" },
      {
        name: "Balance",
        description:
          "The calling firm's own ledger figures: its balance, and each Türkiye day's totals and movements (gross, fee, net, with the transaction each belongs to). Amounts are lira as text (\"1234.50\"). A test firm's are all zero: its money is not real.",
      },
      {
        name: "Sandbox",
        description:
          "Test helpers for sandbox firms only (`payintake firm create --sandbox`); a live firm gets 404 `Not found`. A sandbox deposit gets the sandbox account; an amount ending in .91 is declined by the channel, .92 finds no account.",
      },
    ],
    paths: merchantPaths(),
    components: {
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "The firm's API key." },
        Signature: { type: "apiKey", in: "header", name: "X-Signature", description: SIGNING },
      },
      schemas: componentSchemas(),
    },
  };
}
