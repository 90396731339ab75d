import type { BusinessRejection } from "../rejections.js";

/** Every business rejection's HTTP status and contract text; the compiler forces a row for each. */
export const REJECTIONS: { [k in BusinessRejection]: { status: number; message: string } } = {
  duplicate_reference: { status: 409, message: "Bu islem numarasi zaten kullanilmis" },
  pending_exists: { status: 409, message: "Halihazirda bekleyen talebiniz var" },
  deposits_closed: { status: 403, message: "Yatırım şu anda kapalı" },
  withdrawals_closed: { status: 403, message: "Çekim şu anda kapalı" },
  user_banned: { status: 403, message: "Kullanıcı yasaklı" },
  amount_out_of_limits: { status: 403, message: "Yatırım tutarı limit dışında" },
  no_account: { status: 422, message: "Bu tutar icin uygun hesap yok" },
  // The contract's "no account" answer, byte for byte: a firm at its bound of pending deposits is
  // told what it is told when the shared accounts are full (docs/adr/0013-firm-pending-bounds.md).
  pending_bound: { status: 422, message: "Bu tutar icin uygun hesap yok" },
  channel_declined: { status: 422, message: "Ödeme kanalı talebi kabul etmedi" },
};

/** Legacy firms get HTTP 200 for every business rejection; the body is the same. */
export function rejectionStatus(rejection: BusinessRejection, legacyHttp: boolean): number {
  return legacyHttp ? 200 : REJECTIONS[rejection].status;
}
