// Small bar charts drawn on the server as SVG: one bar per UTC day of a listing's history.
import type { VNode } from "preact";

export interface Bar {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  value: number;
  /** What the bar says, for its tooltip (SVG title). */
  label: string;
}

const WIDTH = 600;
const HEIGHT = 120;
const AXIS = 16;

/**
 * A bar chart of `bars` (oldest first) scaled to `max` (the largest value when not given). It is
 * an image to assistive technology, named by `summary`; the page also lists the values as a table.
 */
export function BarChart({
  bars,
  max,
  summary,
  color,
}: {
  bars: Bar[];
  max?: number;
  summary: string;
  color: string;
}): VNode {
  const top = Math.max(max ?? 0, ...bars.map((bar) => bar.value), 1);
  const slot = WIDTH / Math.max(bars.length, 1);
  const gap = Math.min(4, slot / 4);
  const plot = HEIGHT - AXIS;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary} xmlns="http://www.w3.org/2000/svg">
        <line x1="0" y1={plot} x2={WIDTH} y2={plot} stroke="#6b7380" stroke-width="1" />
        {bars.map((bar, index) => {
          const height = Math.max((bar.value / top) * (plot - 4), bar.value > 0 ? 2 : 0);
          return (
            <rect
              key={bar.day}
              x={index * slot + gap / 2}
              y={plot - height}
              width={slot - gap}
              height={height}
              fill={color}
            >
              <title>{`${bar.day}: ${bar.label}`}</title>
            </rect>
          );
        })}
        {bars.length > 0 && (
          <>
            <text x="0" y={HEIGHT - 2} font-size="12" fill="#4a5361">
              {bars[0]!.day}
            </text>
            <text x={WIDTH} y={HEIGHT - 2} font-size="12" fill="#4a5361" text-anchor="end">
              {bars[bars.length - 1]!.day}
            </text>
          </>
        )}
      </svg>
      <figcaption class="twin">{summary}</figcaption>
    </figure>
  );
}
