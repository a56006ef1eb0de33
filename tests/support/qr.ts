import jsQR from 'jsqr';

const SCALE = 4;
const QUIET = 4;

/**
 * Reads a QR code drawn as SVG the way qrcode draws it (one path of horizontal strokes: M x y,
 * m dx dy, h n): the dark modules become pixels, and jsQR decodes the picture like a phone would.
 */
export function decodeSvgQr(svg: string): string | undefined {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const path = /<path[^>]*stroke="[^"]*"[^>]*d="([^"]+)"/.exec(svg)?.[1];
  if (!size || !path) return undefined;
  const dark = new Set<string>();
  let x = 0;
  let y = 0;
  for (const [, command, a, b] of path.matchAll(/([MmHh])\s*(-?[\d.]+)(?:\s+(-?[\d.]+))?/g)) {
    const first = Number(a);
    if (command === 'M') [x, y] = [first, Number(b)];
    else if (command === 'm') [x, y] = [x + first, y + Number(b)];
    else {
      const end = command === 'h' ? x + first : first;
      for (let column = x; column < end; column += 1) dark.add(`${column},${Math.floor(y)}`);
      x = end;
    }
  }
  const width = (size + QUIET * 2) * SCALE;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  for (const cell of dark) {
    const [column, row] = cell.split(',').map(Number) as [number, number];
    for (let dy = 0; dy < SCALE; dy += 1)
      for (let dx = 0; dx < SCALE; dx += 1) {
        const offset = (((row + QUIET) * SCALE + dy) * width + (column + QUIET) * SCALE + dx) * 4;
        pixels.fill(0, offset, offset + 3);
      }
  }
  return jsQR(pixels, width, width)?.data;
}
