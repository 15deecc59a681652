/** Charts as inline SVG strings, so the report needs no script and no network to render. */

export const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

export interface Series {
  name: string;
  color: string;
}

export interface Column {
  label: string;
  /** One value per series, stacked bottom-up in series order. */
  values: number[];
}

const W = 760;
const H = 260;
const PAD = { left: 56, right: 12, top: 16, bottom: 44 };

/** A "nice" axis maximum and tick step (1, 2, 5 × 10^n) above `max`. */
export function niceScale(max: number, ticks = 5): { max: number; step: number } {
  if (max <= 0) return { max: 1, step: 1 };
  const raw = max / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) as number;
  return { max: Math.ceil(max / step) * step, step };
}

const fmt = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1));

/** Columns to draw a band behind (the whole plot's height), named in the legend. */
export interface MarkedColumns {
  indexes: Set<number>;
  name: string;
  color: string;
}

/**
 * Vertical (optionally stacked) columns with a y axis, x labels thinned to stay legible; `marked`
 * columns stand on a band of their own colour.
 */
export function columnChart(
  title: string,
  series: Series[],
  columns: Column[],
  yLabel: string,
  marked?: MarkedColumns,
): string {
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const totals = columns.map((c) => c.values.reduce((a, b) => a + b, 0));
  const scale = niceScale(Math.max(0, ...totals));
  const slot = plotW / Math.max(1, columns.length);
  const barW = Math.max(1, slot * 0.8);
  const labelEvery = Math.max(1, Math.ceil(columns.length / 20));
  const parts: string[] = [];
  for (let tick = 0; tick <= scale.max + 1e-9; tick += scale.step) {
    const y = PAD.top + plotH - (tick / scale.max) * plotH;
    parts.push(`<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}"/>`);
    parts.push(
      `<text class="tick" x="${PAD.left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${fmt(tick)}</text>`,
    );
  }
  columns.forEach((column, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    if (marked?.indexes.has(i))
      parts.push(
        `<rect class="marked" x="${(PAD.left + i * slot).toFixed(1)}" y="${PAD.top}" width="${slot.toFixed(1)}" height="${plotH}" fill="${marked.color}"><title>${escapeHtml(`${column.label}: ${marked.name}`)}</title></rect>`,
      );
    let base = PAD.top + plotH;
    column.values.forEach((value, s) => {
      if (value <= 0) return;
      const h = (value / scale.max) * plotH;
      base -= h;
      parts.push(
        `<rect class="bar" x="${x.toFixed(1)}" y="${base.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${series[s].color}"><title>${escapeHtml(`${column.label}: ${series[s].name} ${fmt(value)}`)}</title></rect>`,
      );
    });
    if (i % labelEvery === 0) {
      parts.push(
        `<text class="tick" x="${(x + barW / 2).toFixed(1)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${escapeHtml(column.label)}</text>`,
      );
    }
  });
  parts.push(
    `<text class="axis" x="14" y="${PAD.top + plotH / 2}" transform="rotate(-90 14 ${PAD.top + plotH / 2})" text-anchor="middle">${escapeHtml(yLabel)}</text>`,
  );
  const keys = [...(series.length > 1 ? series : []), ...(marked?.indexes.size ? [marked] : [])];
  return svg(title, parts.join(''), legend(keys));
}

/** Horizontal bars, one per label: for categories with long names such as "409 SOLD_OUT". */
export function barList(title: string, bars: { label: string; value: number; color: string }[]): string {
  const rowH = 26;
  const labelW = 230;
  const height = PAD.top + bars.length * rowH + 8;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const rows = bars.map((bar, i) => {
    const y = PAD.top + i * rowH;
    const w = ((W - labelW - 90) * bar.value) / max;
    return (
      `<text class="tick" x="${labelW - 8}" y="${y + 17}" text-anchor="end">${escapeHtml(bar.label)}</text>` +
      `<rect class="bar" x="${labelW}" y="${y + 4}" width="${Math.max(1, w).toFixed(1)}" height="${rowH - 8}" fill="${bar.color}"><title>${escapeHtml(`${bar.label}: ${bar.value}`)}</title></rect>` +
      `<text class="value" x="${(labelW + w + 6).toFixed(1)}" y="${y + 17}">${bar.value}</text>`
    );
  });
  return svg(title, rows.join(''), '', height);
}

function legend(series: Series[]): string {
  if (!series.length) return '';
  const items = series.map(
    (s) => `<span class="key"><i style="background:${s.color}"></i>${escapeHtml(s.name)}</span>`,
  );
  return `<div class="legend">${items.join('')}</div>`;
}

export function svg(title: string, body: string, after: string, height = H): string {
  return `<figure class="chart"><figcaption>${escapeHtml(title)}</figcaption><svg role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" xmlns="http://www.w3.org/2000/svg">${body}</svg>${after}</figure>`;
}
