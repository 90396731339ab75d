/** The ways a payer sends a deposit: the contract names them in lower case. */
export const METHODS = ["fast", "eft", "havale"] as const;
export type Method = (typeof METHODS)[number];
