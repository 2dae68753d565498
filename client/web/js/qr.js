// The invitation's QR code, drawn as SVG from the vendored lean-qr encoder (README.md).
// The page loads this module only when an invitation is shown.

import { correction, generate } from "../vendor/lean-qr/nano.mjs";

const SVG = "http://www.w3.org/2000/svg";
/** The quiet zone around the code, in modules (the standard's 4). */
const QUIET = 4;

/** Draw `text` as a QR code into `box` (its children replaced): dark modules on white,
 * with the standard quiet zone of 4 modules, error correction M (a smudged screen still
 * scans). Returns the number of modules across, the quiet zone included. */
export function drawQr(doc, box, text) {
  const code = generate(text, { minCorrectionLevel: correction.M });
  const side = code.size + 2 * QUIET;
  const svg = doc.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
  svg.setAttribute("shape-rendering", "crispEdges");
  svg.setAttribute("aria-hidden", "true");
  const paper = doc.createElementNS(SVG, "rect");
  paper.setAttribute("width", String(side));
  paper.setAttribute("height", String(side));
  paper.setAttribute("fill", "#fff");
  let d = "";
  for (let y = 0; y < code.size; y += 1) {
    for (let x = 0; x < code.size; x += 1) {
      if (code.get(x, y)) d += `M${x + QUIET} ${y + QUIET}h1v1h-1z`;
    }
  }
  const ink = doc.createElementNS(SVG, "path");
  ink.setAttribute("d", d);
  ink.setAttribute("fill", "#000");
  svg.append(paper, ink);
  box.replaceChildren(svg);
  return side;
}
