// The payment page's words in Turkish (the page's first language, docs/hosted-page.md) and English,
// in one scheme: each text is a key with both its words ({ tr, en }), read with wordsIn. page.js
// imports it; test/unit/translations.test.ts holds every key to both languages.

/**
 * A key's words in `lang`; undefined for a key the table does not hold (own keys only: "toString" is
 * no key). Not Object.hasOwn, which older phones' browsers lack.
 */
export function wordsIn(table, key, lang) {
  return Object.keys(table).includes(key) ? table[key][lang] : undefined;
}

/** The page's own texts, by the key page.js and page.html's data-i18n name. */
export const PAGE_WORDS = {
  title: { tr: "Havale / EFT ile ödeme", en: "Pay by bank transfer" },
  paymentTo: { tr: "{merchant} için ödeme", en: "Payment to {merchant}" },
  merchant: { tr: "İşyeri", en: "Merchant" },
  loading: { tr: "Yükleniyor…", en: "Loading…" },
  amountLabel: { tr: "Ödemek istediğiniz tutar (TL)", en: "Amount you want to pay (TL)" },
  amountHelp: { tr: "Örnek: 250 ya da 1.250,50", en: "For example: 250 or 1.250,50 (250.50 works too)" },
  continue: { tr: "Devam et", en: "Continue" },
  sending: { tr: "Gönderiliyor…", en: "Sending…" },
  ownName: {
    tr: "Kendi adınıza açılmış bir hesaptan gönderin: ödemeniz adınızla eşleştirilir.",
    en: "Send it from an account in your own name: your payment is matched by your name.",
  },
  confirmTitle: { tr: "Tutarı kontrol edin", en: "Check the amount" },
  confirmHelp: {
    tr: "Bu tutarı bankanızdan göndereceksiniz. Doğruysa onaylayın; hesap bilgileri bir sonraki ekranda.",
    en: "This is the amount you will send from your bank. If it is right, confirm; the account details come next.",
  },
  confirm: { tr: "Onayla ve hesabı göster", en: "Confirm and show the account" },
  change: { tr: "Tutarı değiştir", en: "Change the amount" },
  unusualAmount: {
    tr: "Dikkat: bu tutar, bu işyerine genellikle ödenen tutarların çok üstünde. Fazladan bir rakam yazılmadığından emin olun.",
    en: "Note: this amount is far above what is usually paid to this merchant. Make sure no extra digit was typed.",
  },
  takeReading: { tr: "{amount} ile devam et", en: "Continue with {amount}" },
  transferLead: {
    tr: "Aşağıdaki hesaba tam olarak bu tutarı gönderin:",
    en: "Send exactly this amount to the account below:",
  },
  earlierAmount: {
    tr: "Bu ödeme için daha önce {amount} girilmişti; bu tutarı gönderin.",
    en: "An amount of {amount} was entered for this payment earlier; send this amount.",
  },
  earlierDeposit: {
    tr: "Daha önce başlattığınız {amount} tutarındaki ödeme henüz sonuçlanmadı; o sonuçlanmadan yeni ödeme başlatılamaz. Göndermediyseniz aşağıdaki hesaba gönderin; gönderdiyseniz tekrar göndermeyin.",
    en: "Your earlier payment of {amount} is not settled yet, and no new payment can start until it is. If you have not sent it, send it to the account below; if you have, do not send it again.",
  },
  earlierSettled: {
    tr: "Önceki ödeme talebiniz sonuçlandı. Yeni bir ödeme için tutarı girin.",
    en: "Your earlier payment request is settled. Enter an amount for a new payment.",
  },
  waitingEarlier: {
    tr: "O ödeme sonuçlandığında bu sayfa kendiliğinden güncellenir.",
    en: "This page updates by itself once that payment is settled.",
  },
  amount: { tr: "Tutar", en: "Amount" },
  bank: { tr: "Banka", en: "Bank" },
  holder: { tr: "Alıcı adı", en: "Recipient" },
  copy: { tr: "Kopyala", en: "Copy" },
  copyAmount: { tr: "Tutarı kopyala", en: "Copy the amount" },
  copyBank: { tr: "Banka adını kopyala", en: "Copy the bank name" },
  copyHolder: { tr: "Alıcı adını kopyala", en: "Copy the recipient's name" },
  copyIban: { tr: "IBAN'ı kopyala", en: "Copy the IBAN" },
  code: { tr: "Açıklama", en: "Description" },
  copyCode: { tr: "Açıklamayı kopyala", en: "Copy the description" },
  codeHelp: {
    tr: "Bu kodu havale, EFT veya FAST işleminin açıklamasına yazın: ödemeniz beklemeden onaylanır.",
    en: "Write this code in the transfer's description (havale, EFT or FAST): your payment is then confirmed without waiting.",
  },
  copied: { tr: "Kopyalandı", en: "Copied" },
  copiedAmount: { tr: "Tutar kopyalandı", en: "Amount copied" },
  copiedBank: { tr: "Banka adı kopyalandı", en: "Bank name copied" },
  copiedHolder: { tr: "Alıcı adı kopyalandı", en: "Recipient's name copied" },
  copiedIban: { tr: "IBAN kopyalandı", en: "IBAN copied" },
  copiedCode: { tr: "Açıklama kopyalandı", en: "Description copied" },
  copyFailed: {
    tr: "Otomatik kopyalanamadı. Değer aşağıda seçildi; elle kopyalayın.",
    en: "Could not copy automatically. The value is selected below; copy it by hand.",
  },
  copyValue: { tr: "Kopyalanacak değer", en: "Value to copy" },
  waiting: {
    tr: "Ödemeyi gönderdiyseniz tekrar göndermeyin. Onaylandığında işyerine bildirilir ve bu sayfa kendiliğinden güncellenir; sayfayı açık tutmanız gerekmez.",
    en: "If you have sent the payment, do not send it again. Once it is confirmed, the merchant is told and this page updates by itself; you need not keep it open.",
  },
  payBy: { tr: "Son ödeme saati: {time}", en: "Pay by {time}" },
  minutesLeft: { tr: "({minutes} dakika kaldı)", en: "({minutes} minutes left)" },
  oneMinuteLeft: { tr: "(1 dakika kaldı)", en: "(1 minute left)" },
  hoursLeft: { tr: "({hours} saat {minutes} dakika kaldı)", en: "({hours} h {minutes} min left)" },
  wholeHoursLeft: { tr: "({hours} saat kaldı)", en: "({hours} h left)" },
  timeUp: { tr: "(Süre doldu)", en: "(Time is up)" },
  openUntil: { tr: "Bu sayfa şu zamana kadar açık kalır: {time}.", en: "This page stays open until {time}." },
  slowAnswer: {
    tr: "Yanıt gecikti. Girdiğiniz tutar iletilmiş olabilir: sayfa birkaç saniye içinde güncellenir.",
    en: "The answer is late. Your amount may have been received: the page updates in a few seconds.",
  },
  expiredTitle: { tr: "Bu ödeme sayfası kapandı", en: "This payment page is closed" },
  expiredText: {
    tr: "Bu ödeme bağlantısı artık geçerli değil; bu sayfadan ödeme yapılamaz. Yeni bir ödeme için işyerinin sitesine dönün.",
    en: "This payment link is no longer valid; no payment can be made from it. Go back to the merchant's site for a new payment.",
  },
  approvedTitle: { tr: "Ödemeniz onaylandı", en: "Your payment is confirmed" },
  approvedText: {
    tr: "İşyeri ödemenizi aldı. Bu sayfayı kapatabilirsiniz; tekrar ödeme yapmayın.",
    en: "The merchant has received your payment. You can close this page; do not pay again.",
  },
  rejectedTitle: { tr: "Bu ödeme talebi kapandı", en: "This payment request is closed" },
  rejectedText: {
    tr: "Ödeme onaylanmadı (talep reddedildi veya süresi doldu). Havale yaptıysanız tekrar göndermeyin; dekontunuzla işyerine başvurun.",
    en: "The payment was not confirmed (the request was rejected or expired). If you sent a transfer, do not send it again; contact the merchant with your receipt.",
  },
  requestedAt: { tr: "Talep zamanı", en: "Requested at" },
  reference: { tr: "İşlem numarası", en: "Reference" },
  rejectedReference: {
    tr: "İşyerine başvururken bu işlem numarasını bildirin: {reference}",
    en: "Quote this reference when you contact the merchant: {reference}",
  },
  handoffTitle: { tr: "Telefonunuzdan ödeyin", en: "Pay from your phone" },
  handoffText: {
    tr: "Bankanızın uygulaması telefonunuzdaysa bu kodu telefonunuzun kamerasıyla okutun: bu sayfa telefonunuzda açılır.",
    en: "If your banking app is on your phone, scan this code with its camera: this page opens there.",
  },
  qrAlt: { tr: "Bu sayfayı telefonunuzda açan QR kodu", en: "QR code that opens this page on your phone" },
  missingTitle: { tr: "Ödeme bağlantısı bulunamadı", en: "Payment link not found" },
  missingText: {
    tr: "Bağlantıyı kontrol edin veya işyerinin sitesine dönün.",
    en: "Check the link or go back to the merchant's site.",
  },
  loadFailedTitle: { tr: "Sayfa yüklenemedi", en: "The page could not be loaded" },
  loadFailedText: {
    tr: "İnternet bağlantınızı kontrol edip tekrar deneyin.",
    en: "Check your internet connection and try again.",
  },
  retry: { tr: "Tekrar dene", en: "Try again" },
  back: { tr: "Siteye dön", en: "Back to the site" },
  badAmount: {
    tr: "Geçerli bir tutar girin; örneğin 1250 ya da 1.250,50.",
    en: "Enter a valid amount, for example 1250 or 1.250,50.",
  },
  dottedThousands: {
    tr: "{typed} TL mi? Öyleyse {plain} ya da {typed},00 yazın.",
    en: "Do you mean {typed} TL with a thousands dot? Then type {plain} or {typed},00.",
  },
  limitsBoth: { tr: "En az {min}, en çok {max}.", en: "At least {min}, at most {max}." },
  limitsMin: { tr: "En az {min}.", en: "At least {min}." },
  limitsMax: { tr: "En çok {max}.", en: "At most {max}." },
  outOfLimits: { tr: "Yatırım tutarı limit dışında.", en: "This amount is outside the allowed limits." },
  tooMany: { tr: "Çok fazla deneme. Lütfen biraz bekleyin.", en: "Too many attempts. Please wait a moment." },
  failed: { tr: "Bir sorun oluştu. Lütfen tekrar deneyin.", en: "Something went wrong. Please try again." },
  other: { tr: "English", en: "Türkçe" },
  otherLang: { tr: "en", en: "tr" },
  lang: { tr: "tr", en: "en" },
};
// What the page API's refusals say to payers, by the refusal's code (src/payment-page/refusals.ts,
// PAGE_REFUSAL_CODES; a unit test holds every code to words in both languages): with proper
// spelling and what to do next, the English said as the Turkish is, with the same next step. A code
// without words (a 500) is the page's own "something went wrong".
export const REFUSAL_WORDS = {
  pending_exists: {
    tr: "Bekleyen bir ödeme talebiniz var. Önce onu tamamlayın veya işyerine başvurun.",
    en: "You have a payment request pending. Complete it first, or contact the merchant.",
  },
  // On the page this means the merchant reused a reference (a payer's own earlier amount shows its
  // account instead): nothing was paid, and only the merchant can open a usable link.
  duplicate_reference: {
    tr: "Bu ödeme bağlantısı kullanılamıyor. İşyerine başvurun veya işyerinin sitesine dönüp yeni bir ödeme başlatın.",
    en: "This payment link cannot be used. Contact the merchant, or go back to the merchant's site and start a new payment.",
  },
  no_account: {
    tr: "Bu tutar için şu anda uygun hesap yok. Başka bir tutar deneyin.",
    en: "No account is available for this amount. Try another amount.",
  },
  channel_declined: {
    tr: "Ödeme kanalı bu talebi kabul etmedi. Başka bir tutar deneyin.",
    en: "The payment channel did not accept this request. Try another amount.",
  },
  deposits_closed: {
    tr: "Yatırım şu anda kapalı. Daha sonra tekrar deneyin.",
    en: "Deposits are closed at the moment. Try again later.",
  },
  withdrawals_closed: {
    tr: "Çekim şu anda kapalı. Daha sonra tekrar deneyin.",
    en: "Withdrawals are closed at the moment. Try again later.",
  },
  user_banned: {
    tr: "Bu kullanıcı ödeme yapamaz. İşyerine başvurun.",
    en: "This user cannot make payments. Contact the merchant.",
  },
  amount_out_of_limits: {
    tr: "Yatırım tutarı limit dışında. Başka bir tutar deneyin veya limitleri işyerine sorun.",
    en: "This amount is outside the allowed limits. Try another amount or ask the merchant for the limits.",
  },
  invalid_amount: {
    tr: "Geçerli bir tutar girin; örneğin 1250 ya da 1.250,50.",
    en: "Enter a valid amount, for example 1250 or 1.250,50.",
  },
  invalid_json: {
    tr: "Bir sorun oluştu. Lütfen tekrar deneyin.",
    en: "Something went wrong. Please try again.",
  },
  too_many_requests: {
    tr: "Çok fazla deneme. Lütfen biraz bekleyin.",
    en: "Too many attempts. Please wait a moment.",
  },
  not_found: {
    tr: "Ödeme bağlantısı bulunamadı. Bağlantıyı kontrol edin veya işyerinin sitesine dönün.",
    en: "Payment link not found. Check the link or go back to the merchant's site.",
  },
};
/** Refused by limits: the page names the limits when it knows them. */
export const LIMIT_REFUSAL = "amount_out_of_limits";
/** Refused because the payer has a pending deposit: the page then asks at once to show it. */
export const PENDING_REFUSAL = "pending_exists";
