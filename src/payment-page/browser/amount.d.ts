// Types for amount.js, which the console imports (it is plain JavaScript so the page can load it).
export declare const bareAmount: (text: string) => string;
export declare const dottedThousands: (text: string) => boolean;
export declare function readAmount(text: string): string | null;
export declare function amountInWords(plain: string, lang: "tr" | "en"): string;
