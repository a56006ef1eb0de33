import { useMemo } from 'react';

const CELLS = 25;

/** A QR-style tile for the official accounts (the real codes are images the operator uploads later). */
export function QrCode({ seed, size = 96, label }: { seed: string; size?: number; label: string }) {
  const cells = useMemo(() => {
    let state = [...seed].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) >>> 0, 7);
    const random = (): number => {
      state = (state * 1664525 + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    const isFinder = (x: number, y: number): boolean =>
      (x < 8 && y < 8) || (x >= CELLS - 8 && y < 8) || (x < 8 && y >= CELLS - 8);
    const out: [number, number][] = [];
    for (let y = 0; y < CELLS; y += 1)
      for (let x = 0; x < CELLS; x += 1) if (!isFinder(x, y) && random() > 0.52) out.push([x, y]);
    return out;
  }, [seed]);
  const finder = (x: number, y: number) => (
    <g key={`${x}-${y}`}>
      <rect x={x} y={y} width="7" height="7" fill="#1f2d3d" />
      <rect x={x + 1} y={y + 1} width="5" height="5" fill="#fff" />
      <rect x={x + 2} y={y + 2} width="3" height="3" fill="#1f2d3d" />
    </g>
  );
  return (
    <svg
      width={size}
      height={size}
      viewBox={`-1 -1 ${CELLS + 2} ${CELLS + 2}`}
      role="img"
      aria-label={label}
      shapeRendering="crispEdges"
    >
      <rect x="-1" y="-1" width={CELLS + 2} height={CELLS + 2} fill="#fff" />
      {cells.map(([x, y]) => (
        <rect key={`${x}.${y}`} x={x} y={y} width="1" height="1" fill="#1f2d3d" />
      ))}
      {[finder(0, 0), finder(CELLS - 7, 0), finder(0, CELLS - 7)]}
    </svg>
  );
}
