export { type CallbackCheck, type CallbackEvent, verifyCallback } from "./callbacks.js";
export {
  type ApiError,
  type Balance,
  type BalanceDay,
  type BalanceDayOptions,
  type BalanceMovement,
  type BalanceMovementType,
  type BalanceOptions,
  type ClientOptions,
  type Deposit,
  type DepositInput,
  type ErrorCode,
  type Exact,
  type HostedDepositInput,
  type Payer,
  PayintakeClient,
  type Result,
  type Transaction,
  type Withdrawal,
  type WithdrawalInput,
} from "./client.js";
export { signRequest } from "./signing.js";
