import { encode } from "uqr";

/** Modules of light margin around the code: the quiet zone a scanner needs to find it. */
const QUIET = 4;

/**
 * A QR code of `text` as an SVG image: one path of dark squares on white, drawn by us (uqr encodes,
 * nothing is fetched from a third party). Error correction M, as the console's TOTP code.
 */
export function qrSvg(text: string): string {
  const { size, data } = encode(text, { ecc: "M", border: 0 });
  const side = size + 2 * QUIET;
  let d = "";
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${x + QUIET} ${y + QUIET}h1v1h-1z`;
    });
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path fill="#000" d="${d}"/></svg>`
  );
}
