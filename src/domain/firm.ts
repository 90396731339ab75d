/** A firm as the request path sees it: settings plus the opened secret key. */
export interface Firm {
  id: number;
  name: string;
  secret: string;
  active: boolean;
  webhookUrl: string | null;
  /** Central callback URL of the firm's platform or aggregator provider, if it registered one. */
  providerCallbackUrl: string | null;
  legacyHttp: boolean;
  callbackMiddleName: boolean;
  depositMin: number | null;
  depositMax: number | null;
  depositsOpen: boolean;
  withdrawalsOpen: boolean;
  rateLimitPerSecond: number;
  /** A test firm: deposits get the sandbox account; the sandbox helpers answer it. */
  sandbox: boolean;
}
