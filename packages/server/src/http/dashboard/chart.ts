import type { DaySettled } from '../../domain/dashboard/summary.ts';
import { day, money } from './format.ts';
import { html, type Markup } from './markup.ts';

const WIDTH = 600;
const HEIGHT = 160;
const BASE = 140;

/**
 * Settled volume per day as an inline SVG bar chart (no library, no script). Each bar has a
 * <title> for pointer users; the table that follows the chart says the same for everyone.
 */
export function volumeChart(days: DaySettled[]): Markup {
  const max = Math.max(1, ...days.map((d) => d.amount));
  const slot = WIDTH / days.length;
  const bars = days.map((d, i) => {
    const h = Math.round((d.amount / max) * (BASE - 10));
    return html`<rect class="bar" x="${(i * slot + 2).toFixed(1)}" y="${BASE - h}" width="${(slot - 4).toFixed(1)}" height="${h}"><title>${day(d.day)}: ${money(d.amount)} in ${d.count} payments</title></rect>`;
  });
  const first = days[0];
  const last = days[days.length - 1];
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Settled volume per day, last ${days.length} days; highest ${money(max === 1 ? 0 : max)}">
<line class="axis" x1="0" y1="${BASE}" x2="${WIDTH}" y2="${BASE}"></line>${bars}
<text x="0" y="156">${first ? day(first.day) : ''}</text><text x="${WIDTH}" y="156" text-anchor="end">${last ? day(last.day) : ''}</text></svg>`;
}
