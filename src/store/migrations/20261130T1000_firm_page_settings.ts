import type { Migration } from "./migration.js";

/**
 * What the hosted payment page says of a firm (issue 35, docs/hosted-page.md): `display_name`, the
 * shop's name the payer sees ("<Shop> için ödeme"; NULL: the firm's own name), and
 * `usual_amount_max`, minor units, above which the page's confirmation step warns that the amount is
 * far above what the firm's payers usually send (NULL: judged by the firm's recent approved
 * deposits, payment-page/usual-amount.ts). Neither refuses anything; both NULL for existing firms.
 */
export const firmPageSettings: Migration = {
  version: "20261130T1000_firm_page_settings",
  postgres: `
ALTER TABLE firms ADD COLUMN display_name TEXT;
ALTER TABLE firms ADD COLUMN usual_amount_max BIGINT CHECK (usual_amount_max > 0);
`,
  sqlite: `
ALTER TABLE firms ADD COLUMN display_name TEXT;
ALTER TABLE firms ADD COLUMN usual_amount_max INTEGER CHECK (usual_amount_max > 0);
`,
};
