import { describe, expect, it } from "vitest";
import { checkReturnUrl } from "../../src/intake/return-url.js";

const PARSE = "return_url ayrıştırılamadı";
const SCHEME = "return_url yalnız http veya https olabilir";
const HOST = "return_url bir sunucu adı içermeli";
const USERINFO = "return_url kullanıcı bilgisi (userinfo) içeremez";

describe("checkReturnUrl", () => {
  it.each([
    "https://shop.example.com",
    "https://shop.example.com/",
    "http://shop.example.com/back",
    "https://shop.example.com:8443/back?order=1&x=y#top",
    "HTTPS://SHOP.EXAMPLE.COM/Back",
    "Http://shop.example.com",
    "https://bücher.de/",
    "https://xn--bcher-kva.de/",
    "http://203.0.113.5/back",
    "http://[2001:db8::1]/back",
    "http://[::1]:80/",
    "https://shop.example.com/path?next=https://other.example.com",
    "https://shop.example.com/?mail=a@b.com",
    "https://shop.example.com/#@frag",
    "https://shop.example.com/%41%42",
  ])("accepts %j", (url) => {
    expect(checkReturnUrl(url)).toBeNull();
  });

  it.each([
    "ftp://x.com",
    "FTP://x.com",
    "javascript:alert(1)",
    "data:text/html,hi",
    "file:///etc/passwd",
    "mailto:a@b.com",
    "ws://x.com",
    "x.com",
    "x.com/back",
    "//x.com/back",
    "/relative/path",
  ])("rejects the scheme of %j", (url) => {
    expect(checkReturnUrl(url)).toBe(SCHEME);
  });

  it.each([
    "http://",
    "https://",
    "https:///",
    "https:///x.com",
    "http:x.com",
    "http:/x.com",
    "https://:443",
    "https://?q=1",
    "https://#f",
  ])("rejects %j for having no host", (url) => {
    expect(checkReturnUrl(url)).toBe(HOST);
  });

  it.each([
    "https://user:pass@x.com",
    "https://user@x.com",
    "http://user:pass@x.com/back",
    "https://a@b@x.com",
    "https://@x.com",
  ])("rejects userinfo in %j", (url) => {
    expect(checkReturnUrl(url)).toBe(USERINFO);
  });

  it.each([
    "http://[::1",
    "%zz",
    "https://x.com/%zz",
    "https://x.com/%4",
    "https://x.com/%",
    ":foo",
    "https://x.com:abc/",
    "https://x.com:99999/",
    "https://exa mple.com/",
    "https://x.com/\u0000",
    "https://x.com/\n",
    "http://[::1/back",
  ])("rejects %j as unparseable", (url) => {
    expect(checkReturnUrl(url)).toBe(PARSE);
  });

  it("never prefixes the four messages", () => {
    for (const url of ["ftp://x.com", "http://", "https://u:p@x.com", "%zz"]) {
      const msg = checkReturnUrl(url);
      expect(msg).not.toBeNull();
      expect(msg).toMatch(/^return_url /);
      expect(msg).not.toContain("Validation failed");
    }
  });

  it("returns the contract's texts byte for byte", () => {
    expect(Buffer.from(checkReturnUrl("%zz") ?? "", "utf8").toString("hex")).toBe(
      Buffer.from("return_url ayr\u0131\u015ft\u0131r\u0131lamad\u0131", "utf8").toString("hex"),
    );
    expect(checkReturnUrl("ftp://x.com")).toBe("return_url yaln\u0131z http veya https olabilir");
    expect(checkReturnUrl("http://")).toBe("return_url bir sunucu ad\u0131 i\u00e7ermeli");
    expect(checkReturnUrl("https://u:p@x.com")).toBe(
      "return_url kullan\u0131c\u0131 bilgisi (userinfo) i\u00e7eremez",
    );
  });
});
