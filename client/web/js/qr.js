// The invitation's QR code, drawn as SVG from the vendored uqr encoder (README.md). The
// page loads this module only when an invitation is shown.

import { encode } from "../vendor/uqr/index.mjs";

const SVG = "http://www.w3.org/2000/svg";

/** Draw `text` as a QR code into `box` (its children replaced): dark modules on white,
 * with the standard quiet zone of 4 modules, error correction M (a smudged screen still
 * scans). Returns the number of modules across. */
export function drawQr(doc, box, text) {
  const code = encode(text, { ecc: "M", border: 4 });
  const svg = doc.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${code.size} ${code.size}`);
  svg.setAttribute("shape-rendering", "crispEdges");
  svg.setAttribute("aria-hidden", "true");
  const paper = doc.createElementNS(SVG, "rect");
  paper.setAttribute("width", String(code.size));
  paper.setAttribute("height", String(code.size));
  paper.setAttribute("fill", "#fff");
  let d = "";
  code.data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${x} ${y}h1v1h-1z`;
    });
  });
  const ink = doc.createElementNS(SVG, "path");
  ink.setAttribute("d", d);
  ink.setAttribute("fill", "#000");
  svg.append(paper, ink);
  box.replaceChildren(svg);
  return code.size;
}
