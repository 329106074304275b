// groundsearch charts: one Plotly figure per chart subtype. Every number comes from the chart result the server
// computed from stored fields; nothing is counted or binned here (histograms use histfunc "sum" over the
// server's bins). Loaded before app.js, which calls figure().
"use strict";

const unique = (xs) => [...new Set(xs)];
const PALETTE = ["#2457c5", "#e07b39", "#3a9d5d", "#c94c4c", "#8c6bb1", "#c9a227", "#4aa3b5", "#7f7f7f"];

function axes(xTitle, yTitle, extra = {}) {
  return { xaxis: { title: { text: xTitle }, automargin: true }, yaxis: { title: { text: yTitle }, automargin: true },
           ...extra };
}

function figure(c) {
  const pts = c.points;
  const labels = pts.map((p) => p.label), values = pts.map((p) => p.value);
  const hover = pts.map((p) => `${p.label}${p.series ? ` · ${p.series}` : ""}: ${p.value} (${(p.source_ids || []).length} source${(p.source_ids || []).length === 1 ? "" : "s"})`);
  switch (c.subtype) {
    case "ranked-bar":
    case "tornado": {
      const rev = (xs) => xs.slice().reverse();  // largest at the top, as read
      const colors = c.subtype === "tornado" ? rev(values.map((v) => (v < 0 ? "#c94c4c" : "#2457c5"))) : undefined;
      return { data: [{ type: "bar", orientation: "h", y: rev(labels), x: rev(values), marker: { color: colors },
                        hovertext: rev(hover), hoverinfo: "text" }],
               layout: axes(c.y_label, c.x_label, { margin: { l: 160 } }) };
    }
    case "line":
    case "timeline":
    case "area":
      return { data: [{ type: "scatter", mode: "lines+markers", x: labels, y: values, hovertext: hover, hoverinfo: "text",
                        fill: c.subtype === "area" ? "tozeroy" : "none" }],
               layout: axes(c.x_label, c.y_label) };
    case "pie":
    case "donut":
      return { data: [{ type: "pie", labels, values, hole: c.subtype === "donut" ? 0.5 : 0, sort: false,
                        textinfo: "label+percent", hovertext: hover, hoverinfo: "text", automargin: true }],
               layout: { showlegend: false } };
    case "treemap":
      return { data: [{ type: "treemap", labels, parents: labels.map(() => ""), values, textinfo: "label+value+percent root",
                        hovertext: hover, hoverinfo: "text" }], layout: {} };
    case "sunburst": {
      const parents = unique(pts.map((p) => p.series));
      const total = (s) => pts.filter((p) => p.series === s).reduce((a, p) => a + p.value, 0);
      return { data: [{ type: "sunburst", branchvalues: "total",
                        ids: [...parents.map((s) => `p:${s}`), ...pts.map((p) => `p:${p.series}/${p.label}`)],
                        labels: [...parents, ...labels], parents: [...parents.map(() => ""), ...pts.map((p) => `p:${p.series}`)],
                        values: [...parents.map(total), ...values] }], layout: {} };
    }
    case "stacked-bar": {
      const xs = unique(labels);
      return { data: unique(pts.map((p) => p.series)).map((s, i) => {
                 const mine = new Map(pts.filter((p) => p.series === s).map((p) => [p.label, p.value]));
                 return { type: "bar", name: s, x: xs, y: xs.map((x) => mine.get(x) || 0), marker: { color: PALETTE[i % PALETTE.length] } };
               }),
               layout: axes(c.x_label, c.y_label, { barmode: "stack", legend: { title: { text: c.series_label || "" } } }) };
    }
    case "heatmap": {
      const xs = unique(labels).sort(), ys = unique(pts.map((p) => p.series));
      const cell = new Map(pts.map((p) => [`${p.series}\u0000${p.label}`, p.value]));
      const z = ys.map((y) => xs.map((x) => cell.get(`${y}\u0000${x}`) || 0));
      const layout = axes(c.x_label, c.series_label || "", { margin: { l: 160 } });
      // categories, not a time axis: on dates Plotly widens a cell over the empty months after it
      layout.xaxis.type = "category";
      layout.yaxis.type = "category";
      return { data: [{ type: "heatmap", x: xs, y: ys, z, colorscale: [[0, "#f4f6fa"], [1, "#2457c5"]], text: z,
                        texttemplate: "%{text}", xgap: 1, ygap: 1,
                        hovertemplate: `${c.x_label} %{x} · ${c.series_label || ""} %{y}: %{z}<extra></extra>` }],
               layout };
    }
    case "histogram": {
      const numeric = pts.every((p) => p.x != null && p.x_end != null);
      const trace = { type: "histogram", histfunc: "sum", y: values, hovertext: hover };
      if (numeric && pts.length) {
        const size = pts[0].x_end - pts[0].x;
        Object.assign(trace, { x: pts.map((p) => (p.x + p.x_end) / 2),
                               xbins: { start: pts[0].x, end: pts[pts.length - 1].x_end, size } });
      } else {
        trace.x = labels;
      }
      return { data: [trace], layout: axes(c.x_label, c.y_label, { bargap: 0.02 }) };
    }
    case "scatter":
    case "bubble": {
      const sizes = pts.map((p) => p.size || 0), maxSize = Math.max(...sizes, 1);
      const marker = c.subtype === "bubble"
        ? { size: sizes, sizemode: "area", sizeref: (2 * maxSize) / 40 ** 2, sizemin: 4, color: "#2457c5", opacity: 0.7 }
        : { size: 9, color: "#2457c5" };
      return { data: [{ type: "scatter", mode: "markers", x: pts.map((p) => p.x), y: values, text: labels, marker,
                        hovertemplate: `%{text}<br>${c.x_label} %{x} · ${c.y_label} %{y}<extra></extra>` }],
               layout: axes(c.x_label, c.y_label) };
    }
    case "box":
      return { data: unique(pts.map((p) => p.series)).sort().map((s) => {
                 const mine = pts.filter((p) => p.series === s);
                 return { type: "box", name: s, y: mine.map((p) => p.value), text: mine.map((p) => p.label),
                          boxpoints: "all", jitter: 0.4, pointpos: 0, marker: { color: "#2457c5" } };
               }),
               layout: axes(c.series_label || "", c.y_label, { showlegend: false }) };
    default:
      return { data: [{ type: "bar", x: labels, y: values, hovertext: hover, hoverinfo: "text" }],
               layout: axes(c.x_label, c.y_label) };
  }
}
