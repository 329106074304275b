// groundsearch web page: one search bar (typeahead, recent, popular, keyboard) and one results shell painted
// progressively from the SSE stream of POST /api/search?stream=true. No retrieval logic lives here.
"use strict";

const PREVIEW_MIN_CHARS = 3;
const PREVIEW_DEBOUNCE_MS = 300;   // long enough to skip most keystrokes, short enough to feel live
const RECENT_KEY = "groundsearch.recent";
const RECENT_MAX = 8;

const $ = (sel) => document.querySelector(sel);
// Links come from stored data (a record's address, a chat citation): only http(s) becomes a link, whatever the
// server sends, so an item stored before the ingest-side check cannot run script in a viewer's page.
const safeHref = (v) => {
  try { return ["http:", "https:"].includes(new URL(v, location.href).protocol); } catch { return false; }
};

const el = (tag, attrs = {}, ...kids) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "href") { if (safeHref(v)) node.setAttribute(k, v); }
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const kid of kids) if (kid != null) node.append(kid);
  return node;
};

// ---- typeahead -------------------------------------------------------------------------------------------

const input = $("#q");
const listbox = $("#preview");
let previewTimer = null;
let previewAbort = null;
let active = -1;

function options() { return [...listbox.querySelectorAll('[role="option"]')]; }

function closePreview() {
  listbox.hidden = true;
  listbox.replaceChildren();
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("aria-activedescendant", "");
  active = -1;
}

function setActive(index) {
  const opts = options();
  if (!opts.length) return;
  active = (index + opts.length) % opts.length;
  opts.forEach((o, i) => o.setAttribute("aria-selected", String(i === active)));
  input.setAttribute("aria-activedescendant", opts[active].id);
  opts[active].scrollIntoView({ block: "nearest" });
}

function showPreview(items) {
  listbox.replaceChildren();
  active = -1;
  input.setAttribute("aria-activedescendant", "");
  if (!items.length) { closePreview(); return; }
  items.forEach((item, i) => {
    listbox.append(el("li", {
      id: `preview-opt-${i}`, role: "option", "aria-selected": "false", "data-title": item.title,
      onmousedown: (ev) => { ev.preventDefault(); choose(item.title); },
    }, el("span", { text: item.title }), el("span", { class: "coll", text: item.collection })));
  });
  listbox.hidden = false;
  input.setAttribute("aria-expanded", "true");
}

async function fetchPreview(text) {
  if (previewAbort) previewAbort.abort();          // a newer keystroke makes the older answer useless
  previewAbort = new AbortController();
  try {
    const r = await fetch(`/api/search/preview?limit=8&q=${encodeURIComponent(text)}`,
                          { signal: previewAbort.signal, headers: authHeaders() });
    if (!r.ok) return;
    const body = await r.json();
    if (input.value.trim() === text) showPreview(body.items);
  } catch (err) {
    if (err.name !== "AbortError") console.warn("preview failed", err);
  }
}

input.addEventListener("input", () => {
  clearTimeout(previewTimer);
  const text = input.value.trim();
  if (text.length < PREVIEW_MIN_CHARS) {
    if (previewAbort) previewAbort.abort();
    closePreview();
    return;
  }
  previewTimer = setTimeout(() => fetchPreview(text), PREVIEW_DEBOUNCE_MS);
});

input.addEventListener("keydown", (ev) => {
  const open = !listbox.hidden;
  if (ev.key === "ArrowDown" && open) { ev.preventDefault(); setActive(active + 1); }
  else if (ev.key === "ArrowUp" && open) { ev.preventDefault(); setActive(active - 1); }
  else if (ev.key === "Escape") { closePreview(); }
  else if (ev.key === "Enter" && open && active >= 0) {
    ev.preventDefault();
    choose(options()[active].dataset.title);
  }
});
input.addEventListener("blur", () => setTimeout(closePreview, 100));

function choose(text) {
  input.value = text;
  closePreview();
  runSearch(text);
}

$("#search-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = input.value.trim();
  if (text) { closePreview(); runSearch(text); }
});

// ---- recent searches and popular topics ------------------------------------------------------------------

function recent() {
  try { return JSON.parse(localStorage.getItem(RECENT_KEY) || "[]"); } catch { return []; }
}

function remember(text) {
  const list = [text, ...recent().filter((t) => t !== text)].slice(0, RECENT_MAX);
  localStorage.setItem(RECENT_KEY, JSON.stringify(list));
  renderRecent();
}

function chip(text) { return el("button", { type: "button", class: "chip", text, onclick: () => choose(text) }); }

function renderRecent() {
  const list = recent();
  $("#recent").replaceChildren(...list.map(chip));
  $("#recent-box").hidden = list.length === 0;
}

async function loadPopular() {
  try {
    const r = await fetch("/api/search/suggestions?limit=12", { headers: authHeaders() });
    const body = r.ok ? await r.json() : { suggestions: [] };
    $("#popular").replaceChildren(...body.suggestions.map(chip));
    $("#popular-box").hidden = body.suggestions.length === 0;
  } catch { /* popular topics are optional */ }
}

function authHeaders() {
  const key = localStorage.getItem("groundsearch.key");
  return key ? { Authorization: `Bearer ${key}` } : {};
}

// ---- search over SSE -------------------------------------------------------------------------------------

let searchAbort = null;
let citeNumbers = new Map();

async function runSearch(text) {
  remember(text);
  history.replaceState(null, "", `?q=${encodeURIComponent(text)}`);
  if (searchAbort) searchAbort.abort();            // a new search cancels the old one (the server stops too)
  searchAbort = new AbortController();
  resetResults(text);
  try {
    const r = await fetch("/api/search?stream=true", {
      method: "POST", signal: searchAbort.signal,
      headers: { "Content-Type": "application/json", Accept: "text/event-stream", ...authHeaders() },
      body: JSON.stringify({ query: text }),
    });
    if (!r.ok) {
      const body = await r.json().catch(() => ({}));
      showError(body.error ? body.error.message : `search failed (HTTP ${r.status})`);
      return;
    }
    await readEvents(r.body, onEvent);
  } catch (err) {
    if (err.name !== "AbortError") showError(`search failed: ${err.message}`);
  }
}

async function readEvents(stream, handle) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer = (buffer + value).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) handle(name, JSON.parse(data.join("\n")));
    }
  }
}

function resetResults(text) {
  $("#start").hidden = true;
  $("#results").hidden = false;
  $("#results").setAttribute("aria-busy", "true");
  $("#status").textContent = `Searching for “${text}”…`;
  for (const id of ["#notices", "#structured", "#evidence"]) $(id).replaceChildren();
  $("#prose").replaceChildren();
  $("#prose").hidden = true;
  $("#evidence-box").hidden = true;
  citeNumbers = new Map();
}

function onEvent(name, data) {
  const renderers = {
    results: renderEvidence, table: renderTable, chart: renderChart, timeline: renderTimeline,
    graph: renderGraph, "unsupported-format": renderUnsupported, "low-confidence": renderLowConfidence,
    prose: renderProse, error: (d) => showError(d.error ? d.error.message : "search failed"),
    complete: (d) => {
      if (d.diagnostics && d.diagnostics.request_id) addFeedback(d.diagnostics.request_id);
      $("#results").setAttribute("aria-busy", "false");
      const n = $("#evidence").children.length;
      $("#status").textContent = `${n} source${n === 1 ? "" : "s"} · ${Math.round(d.total_latency_ms)} ms`;
    },
  };
  (renderers[name] || (() => {}))(data);
}

function showError(message) {
  $("#notices").append(el("div", { class: "notice error", role: "alert", text: message }));
  $("#results").setAttribute("aria-busy", "false");
  $("#status").textContent = "";
}

// ---- renderers: one per event kind -------------------------------------------------------------------------

function renderEvidence(data) {
  const list = $("#evidence");
  list.replaceChildren();
  (data.results || []).forEach((hit, i) => {
    citeNumbers.set(hit.id, i + 1);
    const title = hit.url ? el("a", { href: hit.url, target: "_blank", rel: "noopener", text: hit.title })
                          : el("strong", { text: hit.title });
    list.append(el("li", { id: `ev-${hit.id}`, "data-id": hit.id, "data-item": hit.item_id }, title,
      hit.heading_path && hit.heading_path.length ? el("div", { class: "crumb", text: hit.heading_path.join(" › ") }) : null,
      el("p", { class: "snippet", text: hit.snippet }),
      el("div", { class: "meta", text: [hit.collection, hit.date].filter(Boolean).join(" · ") }),
      // the passage prompts for credentials, instructs the reader or links off its own domain: say so, no link
      hit.safety && hit.safety.length ? el("div", { class: "safety", text: `flagged: ${hit.safety.join("; ")}` }) : null));
  });
  $("#evidence-box").hidden = list.children.length === 0;
  $("#status").textContent = `${list.children.length} sources found; composing the answer…`;
}

// Useful / not useful on each source, once the answer is complete (its request id names what was shown).
// Pressing the pressed button again removes the mark.
function addFeedback(requestId) {
  for (const li of $("#evidence").children) {
    const box = el("div", { class: "feedback", role: "group", "aria-label": "Was this source useful?" });
    let mark = null;
    const send = async (useful, button) => {
      try {
        if (mark && mark.useful === useful) {
          const r = await fetch(`/api/feedback/${encodeURIComponent(mark.id)}`, { method: "DELETE", headers: authHeaders() });
          if (!r.ok && r.status !== 404) throw new Error(`HTTP ${r.status}`);
          mark = null;
        } else {
          const r = await fetch("/api/feedback", { method: "POST", headers: { ...authHeaders(), "Content-Type": "application/json" },
            body: JSON.stringify({ request_id: requestId, item_id: li.dataset.item, useful }) });
          if (!r.ok) throw new Error(`HTTP ${r.status}`);
          mark = await r.json();
        }
        for (const b of box.querySelectorAll("button")) b.setAttribute("aria-pressed", String(!!mark && b === button));
        box.title = "";
      } catch (e) {
        box.title = `feedback not saved (${e.message})`;
      }
    };
    const up = el("button", { type: "button", class: "fb-up", "aria-pressed": "false", text: "Useful" });
    const down = el("button", { type: "button", class: "fb-down", "aria-pressed": "false", text: "Not useful" });
    up.addEventListener("click", () => send(true, up));
    down.addEventListener("click", () => send(false, down));
    box.append(up, down);
    li.append(box);
  }
}

function cite(id) {
  const n = citeNumbers.get(id);
  return el("button", {
    type: "button", class: "cite", "data-cite": id, title: `source ${n || id}`, text: `[${n || "?"}]`,
    onclick: () => flashTo(document.getElementById(`ev-${id}`)),
  });
}

function flashTo(target) {   // a citation's source: scrolled into view and highlighted for a moment
  if (!target) return;
  target.scrollIntoView({ behavior: "smooth", block: "center" });
  target.classList.add("flash");
  setTimeout(() => target.classList.remove("flash"), 1500);
}

function renderProse(data) {
  const prose = data.sentences ? data : (data.prose || {});
  const box = $("#prose");
  box.replaceChildren();
  for (const s of prose.sentences || []) {
    const span = el("span", { class: s.verified === false ? "unverified" : "" }, s.text);
    // "verified" is a provenance claim, never a truth claim: say exactly that where the reader sees the mark
    span.title = s.safety && s.safety.length ? `flagged, not verified: ${s.safety.join("; ")}`
      : s.verified === false ? "could not verify this sentence against its sources"
      : "verified: this sentence appears in the cited source (not a claim that it is true)";
    box.append(span, ...(s.citations || []).map(cite), " ");
  }
  box.hidden = box.childNodes.length === 0;
}

function block(title, ...kids) {
  const section = el("section", { class: "result-block" }, title ? el("h3", { text: title }) : null, ...kids);
  $("#structured").append(section);
  return section;
}

function compare(a, b) {
  const x = Number(a), y = Number(b);
  if (a !== "" && b !== "" && !Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

function renderTable(t) {
  const head = el("tr");
  const body = el("tbody");
  const table = el("table", { class: "sortable" }, el("thead", {}, head), body);
  const rows = t.rows.map((row, i) => ({ row, id: (t.row_ids || [])[i] }));
  const paint = () => body.replaceChildren(...rows.map(({ row, id }) => el("tr", { "data-id": id || "" },
    ...row.map((v) => el("td", { text: v == null ? "" : Array.isArray(v) ? v.join(", ") : String(v) })))));
  t.columns.forEach((col, c) => {
    const th = el("th", { scope: "col", "aria-sort": "none" });
    th.append(el("button", { type: "button", text: col, onclick: () => {
      const asc = th.getAttribute("aria-sort") !== "ascending";
      head.querySelectorAll("th").forEach((h) => h.setAttribute("aria-sort", "none"));
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      rows.sort((a, b) => (asc ? 1 : -1) * compare(a.row[c] ?? "", b.row[c] ?? ""));
      paint();
    } }));
    head.append(th);
  });
  paint();
  block(t.title, el("div", { class: "table-wrap" }, table)).classList.add("kind-table");
}

// ---- charts: figure() (static/charts.js) turns a chart result into a Plotly figure ----------------------------

function renderChart(c) {
  const asked = c.requested ? `, as asked: ${c.requested}` : "";
  const plot = el("div", { class: "chart", role: "img", "data-subtype": c.subtype,
                           "aria-label": `${c.title} (${c.subtype} chart${asked})` });
  const section = block(c.title, plot, el("p", { class: "source-note", text: c.source || "" }));
  section.classList.add("kind-chart");
  if (!window.Plotly) {
    renderTable({ title: `${c.title} (chart library unavailable)`,
                  columns: [c.x_label, ...(c.series_label ? [c.series_label] : []), c.y_label],
                  rows: c.points.map((p) => [p.label, ...(c.series_label ? [p.series] : []), p.value]) });
    return;
  }
  const { data, layout } = figure(c);
  const full = { autosize: true, ...layout, margin: { t: 10, r: 10, b: 60, l: 60, ...(layout.margin || {}) } };
  window.Plotly.newPlot(plot, data, full, { displayModeBar: false, responsive: true });
}

function renderTimeline(t) {
  const events = [...t.events].sort((a, b) => String(a.date).localeCompare(String(b.date)));
  block(t.title, el("ol", { class: "timeline" }, ...events.map((e) => el("li", {},
    el("time", { datetime: e.date, text: e.date }), e.label, e.source_id ? cite(e.source_id) : null))))
    .classList.add("kind-timeline");
}

function renderGraph(g) {
  const plot = el("div", { class: "chart", role: "img", "aria-label": `${g.title} (graph of ${g.nodes.length} entities)` });
  const edges = el("ul", { class: "edges" }, ...g.edges.map((e) => el("li", { text: `${label(g, e.source)} — ${label(g, e.target)} (${e.weight})` })));
  block(g.title, plot, el("details", {}, el("summary", { text: `${g.edges.length} connections` }), edges))
    .classList.add("kind-graph");
  if (!window.Plotly || !g.nodes.length) return;
  // Nodes on a circle, heaviest first: a readable, deterministic layout that needs no physics simulation.
  const order = [...g.nodes].sort((a, b) => b.weight - a.weight);
  const pos = new Map(order.map((n, i) => {
    const angle = (2 * Math.PI * i) / order.length;
    return [n.id, [Math.cos(angle), Math.sin(angle)]];
  }));
  const ex = [], ey = [];
  for (const e of g.edges) {
    if (!pos.has(e.source) || !pos.has(e.target)) continue;
    ex.push(pos.get(e.source)[0], pos.get(e.target)[0], null);
    ey.push(pos.get(e.source)[1], pos.get(e.target)[1], null);
  }
  const maxW = Math.max(...order.map((n) => n.weight), 1);
  window.Plotly.newPlot(plot, [
    { type: "scatter", mode: "lines", x: ex, y: ey, line: { color: "#b9c0cc", width: 1 }, hoverinfo: "skip" },
    { type: "scatter", mode: "markers+text", x: order.map((n) => pos.get(n.id)[0]), y: order.map((n) => pos.get(n.id)[1]),
      text: order.map((n) => n.label), textposition: "top center",
      marker: { size: order.map((n) => 10 + 20 * (n.weight / maxW)), color: "#2457c5" } },
  ], { showlegend: false, margin: { t: 20, r: 10, b: 20, l: 10 }, height: 420, xaxis: { visible: false },
       yaxis: { visible: false, scaleanchor: "x" } },
  { displayModeBar: false, responsive: true });
}

function label(g, id) { const n = g.nodes.find((x) => x.id === id); return n ? n.label : id; }

function sentence(text) { return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`; }

function renderUnsupported(u) {
  // substitute is "kind" or "kind:subtype" (e.g. "chart:ranked-bar" reads as "a ranked-bar chart")
  const [kind, subtype] = String(u.substitute).split(":");
  const shown = kind === "none" ? "nothing" : subtype ? `a ${subtype} ${kind}` : `a ${kind}`;
  $("#notices").append(el("div", { class: "notice kind-unsupported-format", role: "status" },
    el("strong", { text: `Can't show this as ${u.requested}` }),
    `${sentence(u.reason)} Showing ${shown} instead.`));
}

function renderLowConfidence(l) {
  $("#notices").append(el("div", { class: "notice kind-low-confidence", role: "status" },
    el("strong", { text: "Low confidence" }),
    `${l.reason} (best match ${Number(l.best_score).toFixed(2)}, needed ${Number(l.threshold).toFixed(2)})`));
}

// ---- start -------------------------------------------------------------------------------------------------

renderRecent();
loadPopular();
const initial = new URLSearchParams(location.search).get("q");
if (initial) {
  input.value = initial;
  // Opened by a link on another site (the server marks the page): fill the box, search when the user asks.
  // Run at once, any page could make this server search — as the local user, or with the key kept here.
  if (document.documentElement.dataset.arrived === "elsewhere") showUnrun(initial);
  else runSearch(initial);
}

function showUnrun(text) {
  $("#start").hidden = true;
  $("#results").hidden = false;
  $("#status").textContent = "";
  $("#notices").replaceChildren(el("div", { class: "notice kind-from-elsewhere", role: "status" },
    el("strong", { text: "Not searched yet" }),
    ` A link from another site opened this page with “${text}”. Press Enter to search for it.`));
  input.focus();
}
