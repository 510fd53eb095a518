// Small inline SVG charts: a line chart over time and a bar chart. No library.

import { formatNumber, gettext, interpolate, language, ngettext } from "./i18n.js";
import { formatDate } from "./util.js";

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

function niceTicks(min, max, count = 4) {
  if (min === max) { min -= 1; max += 1; }
  const span = max - min;
  const step = 10 ** Math.floor(Math.log10(span / count));
  const err = (span / count) / step;
  const nice = step * (err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1);
  const lo = Math.floor(min / nice) * nice;
  const hi = Math.ceil(max / nice) * nice;
  const ticks = [];
  for (let v = lo; v <= hi + nice / 2; v += nice) ticks.push(Math.round(v * 1e6) / 1e6);
  return ticks;
}

function empty(container, text) {
  container.replaceChildren();
  const p = document.createElement("p");
  p.className = "empty";
  p.textContent = text;
  container.append(p);
}

/**
 * A line chart of points {x: Date|number, y: number}.
 * options: title (accessible name), format (y label), zero (draw y=0), emptyText, area
 */
export function lineChart(container, points, options = {}) {
  const data = points.filter((p) => Number.isFinite(p.y) && p.x !== null);
  if (!data.length) { empty(container, options.emptyText || gettext("Nothing to show yet.")); return; }
  const W = 560, H = 240, L = 56, R = 14, T = 14, B = 30;
  const xs = data.map((p) => +p.x);
  const ys = data.map((p) => p.y);
  let xMin = Math.min(...xs), xMax = Math.max(...xs);
  if (xMin === xMax) { xMin -= 1; xMax += 1; }
  const ticks = niceTicks(Math.min(...ys, options.zero ? 0 : Infinity), Math.max(...ys, options.zero ? 0 : -Infinity));
  const yMin = ticks[0], yMax = ticks[ticks.length - 1];
  const sx = (x) => L + ((x - xMin) / (xMax - xMin)) * (W - L - R);
  const sy = (y) => T + (1 - (y - yMin) / (yMax - yMin || 1)) * (H - T - B);
  const fmt = options.format || formatNumber;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": options.title || gettext("chart") });
  root.append(svg("title", {}, interpolate(ngettext("%(title)s: %(count)s point, from %(first)s to %(last)s",
    "%(title)s: %(count)s points, from %(first)s to %(last)s", data.length),
  { title: options.title || gettext("Chart"), count: formatNumber(data.length), first: fmt(ys[0]), last: fmt(ys[ys.length - 1]) })));
  for (const t of ticks) {
    root.append(svg("line", { class: "grid", x1: L, x2: W - R, y1: sy(t), y2: sy(t) }));
    root.append(svg("text", { x: L - 6, y: sy(t) + 4, "text-anchor": "end" }, fmt(t)));
  }
  if (options.zero && yMin < 0 && yMax > 0) root.append(svg("line", { class: "zero", x1: L, x2: W - R, y1: sy(0), y2: sy(0) }));
  const isDate = data[0].x instanceof Date;
  const labels = isDate ? [xMin, xMax] : [];
  labels.forEach((x, i) => root.append(svg("text", { x: sx(x), y: H - 8, "text-anchor": i ? "end" : "start" },
    formatDate(new Date(x)))));
  const path = data.map((p, i) => `${i ? "L" : "M"}${sx(+p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" ");
  if (options.area !== false) {
    const base = sy(Math.max(yMin, Math.min(0, yMax)));
    root.append(svg("path", { class: "area", d: `${path} L${sx(+data[data.length - 1].x).toFixed(1)},${base} L${sx(+data[0].x).toFixed(1)},${base} Z` }));
  }
  root.append(svg("path", { class: "line", d: path }));
  if (data.length <= 60) {
    for (const p of data) {
      const dot = svg("circle", { class: "dot", cx: sx(+p.x), cy: sy(p.y), r: 3 });
      dot.append(svg("title", {}, `${isDate ? formatDate(p.x, true) : formatNumber(p.x)}: ${fmt(p.y)}`));
      root.append(dot);
    }
  }
  container.replaceChildren(root);
}

/** A bar chart of {label, value (0..1 or any), text}. */
export function barChart(container, bars, options = {}) {
  if (!bars.length) { empty(container, options.emptyText || gettext("Nothing to show yet.")); return; }
  const W = 560, rowH = 34, L = 150, R = 70, T = 8;
  const H = T * 2 + rowH * bars.length;
  const max = options.max ?? Math.max(...bars.map((b) => b.value), 1e-9);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": options.title || gettext("chart") });
  const list = new Intl.ListFormat(language, { style: "short", type: "unit" });
  root.append(svg("title", {}, interpolate(gettext("%(title)s: %(bars)s"),
    { title: options.title || gettext("Chart"), bars: list.format(bars.map((b) => `${b.label} ${b.text}`)) })));
  bars.forEach((b, i) => {
    const y = T + i * rowH;
    const w = Math.max(0, (b.value / max) * (W - L - R));
    root.append(svg("text", { x: L - 8, y: y + rowH / 2 + 4, "text-anchor": "end" }, b.label));
    root.append(svg("rect", { class: "axis", x: L, y: y + 6, width: W - L - R, height: rowH - 12, rx: 4, fill: "none" }));
    root.append(svg("rect", { class: "bar", x: L, y: y + 6, width: w, height: rowH - 12, rx: 4 }));
    root.append(svg("text", { x: L + w + 6, y: y + rowH / 2 + 4 }, b.text));
  });
  container.replaceChildren(root);
}
