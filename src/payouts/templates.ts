/**
 * Bank templates an admin adds without code: a template given as JSON is checked
 * (files/bank-template.ts names the key at fault) and kept in the settings table under
 * `template:<CODE>`, audited. An added template of a shipped one's code is used in its place, so a
 * bank's changed layout is one admin command, not a release.
 */
import { type Outcome, refusal } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import { bankTemplates, TEMPLATE_SCOPE } from "./file-download.js";
import { parseBankTemplate } from "./files/bank-template.js";
import { SHIPPED_TEMPLATES } from "./files/shipped-templates.js";

export interface TemplateListing {
  code: string;
  name: string;
  /** Shipped with payintake (true), or added by an admin. */
  shipped: boolean;
}

export async function listTemplates(repos: Repositories): Promise<{ templates: TemplateListing[] }> {
  const shipped = new Map(SHIPPED_TEMPLATES.map((t) => [t.code, t]));
  return {
    templates: (await bankTemplates(repos)).map((t) => ({
      code: t.code,
      name: t.name,
      shipped: shipped.get(t.code) === t,
    })),
  };
}

export async function addTemplate(
  deps: { repos: Repositories; now(): number },
  json: unknown,
  actor: string,
): Promise<Outcome<TemplateListing>> {
  const parsed = parseBankTemplate(json);
  if (!parsed.ok)
    return refusal("payout_template_invalid", parsed.errors.map((e) => `${e.key}: ${e.message}`).join("; "));
  const t = parsed.template;
  // Every key written, so a template added again replaces the earlier one whole.
  const whole = { ...t, transliterate: t.transliterate ?? false };
  await deps.repos.payoutSettings.change(`${TEMPLATE_SCOPE}${t.code}`, whole, actor, deps.now());
  return { ok: true, value: { code: t.code, name: t.name, shipped: false } };
}
