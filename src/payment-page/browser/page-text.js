// The payment page's words, Turkish first (docs/hosted-page.md), and the page's own texts for the
// contract's rejection messages. Imported by page.js.
export const T = {
  tr: {
    title: "Havale / EFT ile ödeme",
    paymentTo: "{merchant} için ödeme",
    merchant: "İşyeri",
    loading: "Yükleniyor…",
    amountLabel: "Ödemek istediğiniz tutar (TL)",
    amountHelp: "Örnek: 250 ya da 1.250,50",
    continue: "Devam et",
    sending: "Gönderiliyor…",
    ownName: "Kendi adınıza açılmış bir hesaptan gönderin: ödemeniz adınızla eşleştirilir.",
    confirmTitle: "Tutarı kontrol edin",
    confirmHelp:
      "Bu tutarı bankanızdan göndereceksiniz. Doğruysa onaylayın; hesap bilgileri bir sonraki ekranda.",
    confirm: "Onayla ve hesabı göster",
    change: "Tutarı değiştir",
    unusualAmount:
      "Dikkat: bu tutar, bu işyerine genellikle ödenen tutarların çok üstünde. Fazladan bir rakam yazılmadığından emin olun.",
    takeReading: "{amount} ile devam et",
    transferLead: "Aşağıdaki hesaba tam olarak bu tutarı gönderin:",
    earlierAmount: "Bu ödeme için daha önce {amount} girilmişti; bu tutarı gönderin.",
    earlierDeposit:
      "Daha önce başlattığınız {amount} tutarındaki ödeme henüz sonuçlanmadı; o sonuçlanmadan yeni ödeme başlatılamaz. Göndermediyseniz aşağıdaki hesaba gönderin; gönderdiyseniz tekrar göndermeyin.",
    earlierSettled: "Önceki ödeme talebiniz sonuçlandı. Yeni bir ödeme için tutarı girin.",
    waitingEarlier: "O ödeme sonuçlandığında bu sayfa kendiliğinden güncellenir.",
    amount: "Tutar",
    bank: "Banka",
    holder: "Alıcı adı",
    copy: "Kopyala",
    copyAmount: "Tutarı kopyala",
    copyBank: "Banka adını kopyala",
    copyHolder: "Alıcı adını kopyala",
    copyIban: "IBAN'ı kopyala",
    code: "Açıklama",
    copyCode: "Açıklamayı kopyala",
    codeHelp: "Bu kodu havale, EFT veya FAST işleminin açıklamasına yazın: ödemeniz beklemeden onaylanır.",
    copied: "Kopyalandı",
    copyFailed: "Otomatik kopyalanamadı. Değer aşağıda seçildi; elle kopyalayın.",
    copyValue: "Kopyalanacak değer",
    waiting:
      "Ödemeyi gönderdiyseniz tekrar göndermeyin. Onaylandığında işyerine bildirilir ve bu sayfa kendiliğinden güncellenir; sayfayı açık tutmanız gerekmez.",
    payBy: "Son ödeme saati: {time}",
    minutesLeft: "({minutes} dakika kaldı)",
    oneMinuteLeft: "(1 dakika kaldı)",
    hoursLeft: "({hours} saat {minutes} dakika kaldı)",
    wholeHoursLeft: "({hours} saat kaldı)",
    timeUp: "(Süre doldu)",
    openUntil: "Bu sayfa şu zamana kadar açık kalır: {time}.",
    slowAnswer: "Yanıt gecikti. Girdiğiniz tutar iletilmiş olabilir: sayfa birkaç saniye içinde güncellenir.",
    expiredTitle: "Bu ödeme sayfası kapandı",
    expiredText:
      "Bu ödeme bağlantısı artık geçerli değil; bu sayfadan ödeme yapılamaz. Yeni bir ödeme için işyerinin sitesine dönün.",
    approvedTitle: "Ödemeniz onaylandı",
    approvedText: "İşyeri ödemenizi aldı. Bu sayfayı kapatabilirsiniz; tekrar ödeme yapmayın.",
    rejectedTitle: "Bu ödeme talebi kapandı",
    rejectedText:
      "Ödeme onaylanmadı (talep reddedildi veya süresi doldu). Havale yaptıysanız tekrar göndermeyin; dekontunuzla işyerine başvurun.",
    requestedAt: "Talep zamanı",
    reference: "İşlem numarası",
    rejectedReference: "İşyerine başvururken bu işlem numarasını bildirin: {reference}",
    handoffTitle: "Telefonunuzdan ödeyin",
    handoffText:
      "Bankanızın uygulaması telefonunuzdaysa bu kodu telefonunuzun kamerasıyla okutun: bu sayfa telefonunuzda açılır.",
    qrAlt: "Bu sayfayı telefonunuzda açan QR kodu",
    missingTitle: "Ödeme bağlantısı bulunamadı",
    missingText: "Bağlantıyı kontrol edin veya işyerinin sitesine dönün.",
    loadFailedTitle: "Sayfa yüklenemedi",
    loadFailedText: "İnternet bağlantınızı kontrol edip tekrar deneyin.",
    retry: "Tekrar dene",
    back: "Siteye dön",
    badAmount: "Geçerli bir tutar girin; örneğin 1250 ya da 1.250,50.",
    dottedThousands: "{typed} TL mi? Öyleyse {plain} ya da {typed},00 yazın.",
    limitsBoth: "En az {min}, en çok {max}.",
    limitsMin: "En az {min}.",
    limitsMax: "En çok {max}.",
    outOfLimits: "Yatırım tutarı limit dışında.",
    tooMany: "Çok fazla deneme. Lütfen biraz bekleyin.",
    failed: "Bir sorun oluştu. Lütfen tekrar deneyin.",
    other: "English",
    otherLang: "en",
    lang: "tr",
  },
  en: {
    title: "Pay by bank transfer",
    paymentTo: "Payment to {merchant}",
    merchant: "Merchant",
    loading: "Loading…",
    amountLabel: "Amount you want to pay (TL)",
    amountHelp: "For example: 250 or 1.250,50 (250.50 works too)",
    continue: "Continue",
    sending: "Sending…",
    ownName: "Send it from an account in your own name: your payment is matched by your name.",
    confirmTitle: "Check the amount",
    confirmHelp:
      "This is the amount you will send from your bank. If it is right, confirm; the account details come next.",
    confirm: "Confirm and show the account",
    change: "Change the amount",
    unusualAmount:
      "Note: this amount is far above what is usually paid to this merchant. Make sure no extra digit was typed.",
    takeReading: "Continue with {amount}",
    transferLead: "Send exactly this amount to the account below:",
    earlierAmount: "An amount of {amount} was entered for this payment earlier; send this amount.",
    earlierDeposit:
      "Your earlier payment of {amount} is not settled yet, and no new payment can start until it is. If you have not sent it, send it to the account below; if you have, do not send it again.",
    earlierSettled: "Your earlier payment request is settled. Enter an amount for a new payment.",
    waitingEarlier: "This page updates by itself once that payment is settled.",
    amount: "Amount",
    bank: "Bank",
    holder: "Recipient",
    copy: "Copy",
    copyAmount: "Copy the amount",
    copyBank: "Copy the bank name",
    copyHolder: "Copy the recipient's name",
    copyIban: "Copy the IBAN",
    code: "Description",
    copyCode: "Copy the description",
    codeHelp:
      "Write this code in the transfer's description (havale, EFT or FAST): your payment is then confirmed without waiting.",
    copied: "Copied",
    copyFailed: "Could not copy automatically. The value is selected below; copy it by hand.",
    copyValue: "Value to copy",
    waiting:
      "If you have sent the payment, do not send it again. Once it is confirmed, the merchant is told and this page updates by itself; you need not keep it open.",
    payBy: "Pay by {time}",
    minutesLeft: "({minutes} minutes left)",
    oneMinuteLeft: "(1 minute left)",
    hoursLeft: "({hours} h {minutes} min left)",
    wholeHoursLeft: "({hours} h left)",
    timeUp: "(Time is up)",
    openUntil: "This page stays open until {time}.",
    slowAnswer: "The answer is late. Your amount may have been received: the page updates in a few seconds.",
    expiredTitle: "This payment page is closed",
    expiredText:
      "This payment link is no longer valid; no payment can be made from it. Go back to the merchant's site for a new payment.",
    approvedTitle: "Your payment is confirmed",
    approvedText: "The merchant has received your payment. You can close this page; do not pay again.",
    rejectedTitle: "This payment request is closed",
    rejectedText:
      "The payment was not confirmed (the request was rejected or expired). If you sent a transfer, do not send it again; contact the merchant with your receipt.",
    requestedAt: "Requested at",
    reference: "Reference",
    rejectedReference: "Quote this reference when you contact the merchant: {reference}",
    handoffTitle: "Pay from your phone",
    handoffText:
      "If your banking app is on your phone, scan this code with its camera: this page opens there.",
    qrAlt: "QR code that opens this page on your phone",
    missingTitle: "Payment link not found",
    missingText: "Check the link or go back to the merchant's site.",
    loadFailedTitle: "The page could not be loaded",
    loadFailedText: "Check your internet connection and try again.",
    retry: "Try again",
    back: "Back to the site",
    badAmount: "Enter a valid amount, for example 1250 or 1.250,50.",
    dottedThousands: "Do you mean {typed} TL with a thousands dot? Then type {plain} or {typed},00.",
    limitsBoth: "At least {min}, at most {max}.",
    limitsMin: "At least {min}.",
    limitsMax: "At most {max}.",
    outOfLimits: "This amount is outside the allowed limits.",
    tooMany: "Too many attempts. Please wait a moment.",
    failed: "Something went wrong. Please try again.",
    other: "Türkçe",
    otherLang: "tr",
    lang: "en",
  },
};
// The contract's rejection texts are what the page API answers, some without Turkish letters;
// payers read them with proper spelling and what to do next. Anything else the server says (a
// 500's English text, say) is shown as the page's own "something went wrong".
export const REJECTIONS_TR = {
  "Halihazirda bekleyen talebiniz var":
    "Bekleyen bir ödeme talebiniz var. Önce onu tamamlayın veya işyerine başvurun.",
  // On the page this means the merchant reused a reference (a payer's own earlier amount shows its
  // account instead): nothing was paid, and only the merchant can open a usable link.
  "Bu islem numarasi zaten kullanilmis":
    "Bu ödeme bağlantısı kullanılamıyor. İşyerine başvurun veya işyerinin sitesine dönüp yeni bir ödeme başlatın.",
  "Bu tutar icin uygun hesap yok": "Bu tutar için şu anda uygun hesap yok. Başka bir tutar deneyin.",
  "Ödeme kanalı talebi kabul etmedi": "Ödeme kanalı bu talebi kabul etmedi. Başka bir tutar deneyin.",
  "Yatırım şu anda kapalı": "Yatırım şu anda kapalı. Daha sonra tekrar deneyin.",
  "Kullanıcı yasaklı": "Bu kullanıcı ödeme yapamaz. İşyerine başvurun.",
  "Yatırım tutarı limit dışında":
    "Yatırım tutarı limit dışında. Başka bir tutar deneyin veya limitleri işyerine sorun.",
};
// Said as the Turkish ones are, with the same next step.
export const REJECTIONS_EN = {
  "Halihazirda bekleyen talebiniz var":
    "You have a payment request pending. Complete it first, or contact the merchant.",
  "Bu islem numarasi zaten kullanilmis":
    "This payment link cannot be used. Contact the merchant, or go back to the merchant's site and start a new payment.",
  "Bu tutar icin uygun hesap yok": "No account is available for this amount. Try another amount.",
  "Ödeme kanalı talebi kabul etmedi": "The payment channel did not accept this request. Try another amount.",
  "Yatırım şu anda kapalı": "Deposits are closed at the moment. Try again later.",
  "Kullanıcı yasaklı": "This user cannot make payments. Contact the merchant.",
  "Yatırım tutarı limit dışında":
    "This amount is outside the allowed limits. Try another amount or ask the merchant for the limits.",
};
export const LIMIT_REJECTION = "Yatırım tutarı limit dışında";
/** Refused because the payer has a pending deposit: the page then asks at once to show it. */
export const PENDING_REJECTION = "Halihazirda bekleyen talebiniz var";
