/**
 * What each sealed value is bound to (docs/adr/0009-sealed-value-context.md): its purpose and the
 * row it belongs to, given to the secret box as AES-GCM additional data. A value copied to another
 * row, or to another column, no longer opens there, so someone who can write the database but not
 * read the master key cannot hand firm B the secret they know as firm A.
 *
 * Each names something fixed for the row's whole life and known when the value is sealed: ids of
 * rows that are never deleted nor renumbered; for a transaction, which is sealed before its id is
 * assigned, its firm and reference (unique per firm forever); for a payment page, its token's hash.
 * The firm id comes first and is digits only, so a reference holding ':' reads one way only.
 * Changing any of these strings makes every value sealed under the old one unreadable.
 */
export const sealContext = {
  firmSecret: (firmId: number) => `firm-secret:${firmId}`,
  channelSecret: (channelId: number) => `channel-secret:${channelId}`,
  feedSecret: (accountId: number) => `feed-secret:${accountId}`,
  /** Both the authenticator secret that is on and the one being set up (it is moved over as sealed). */
  operatorTotp: (operatorId: number) => `operator-totp:${operatorId}`,
  nationalId: (firmId: number, reference: string) => `national-id:${firmId}:${reference}`,
  hostedRequest: (tokenHash: string) => `hosted-request:${tokenHash}`,
  /** The store's payment code key (domain/payment-code.ts), in the one row of `payment_code_keys`. */
  paymentCodeKey: (rowId: number) => `payment-code-key:${rowId}`,
};
