// Curation on the start page (docs/curation.md): cold-start prompt cards while the box is empty, trending topics
// from GET /api/trending, and browse without a query from GET /api/browse with filter presets — system presets plus
// the user's own, kept in localStorage, with rename, delete and undo. Uses el, $, choose and authHeaders of app.js.
"use strict";

const PRESETS_KEY = "groundsearch.presets";
const BROWSE_PAGE = 10;
const TRENDING_HORIZON_DAYS = 90;
// Presets a curator needs on day one; they cannot be renamed or deleted, only copied by saving.
const SYSTEM_PRESETS = [
  { id: "sys-review", name: "Needs review", filters: { overdue_review: "true", sort: "date" } },
  { id: "sys-flagged", name: "Flagged", filters: { review_status: "flagged", sort: "date" } },
  { id: "sys-fresh", name: "Fresh this quarter", filters: { freshness: "fresh", sort: "date" } },
  { id: "sys-quality", name: "Best quality", filters: { sort: "quality" } },
];
const FILTER_NAMES = ["collections", "review_status", "freshness", "overdue_review", "sort"];

let browseCursor = null;
let undoStack = [];

// ---- cold-start cards --------------------------------------------------------------------------------------

function card(text, hint) {
  return el("button", { type: "button", class: "card", onclick: () => choose(text) },
    el("span", { class: "card-text", text }), el("span", { class: "card-hint", text: hint }));
}

function renderCards(collections, topics) {
  const cards = [
    card("What's new this quarter?", "newest first"),
    ...collections.slice(0, 3).map((c) => card(`Latest ${c} as a table`, `a table from ${c}`)),
    ...collections.slice(-1).map((c) => card(`Chart of ${c} per year`, "a chart of stored dates")),
    ...topics.slice(0, 2).map((t) => card(`What is new about ${t.topic}?`, `trending · ${t.items} items`)),
  ];
  $("#cards").replaceChildren(...cards);
  syncCards();
}

function syncCards() { $("#cards-box").hidden = input.value.trim() !== "" || !$("#cards").children.length; }

// ---- trending ----------------------------------------------------------------------------------------------

async function loadTrending() {
  try {
    const r = await fetch(`/api/trending?horizon_days=${TRENDING_HORIZON_DAYS}&limit=8`, { headers: authHeaders() });
    if (!r.ok) return [];
    const body = await r.json();
    $("#trending-window").textContent =
      `${body.window.start} – ${body.window.end}, against the ${body.baseline_windows.length} windows before`;
    $("#trending").replaceChildren(...body.topics.map((t) => el("li", { "data-topic": t.topic },
      el("button", { type: "button", class: "chip", text: t.topic, onclick: () => choose(t.topic) }),
      el("span", { class: `tier tier-${t.tier.toLowerCase()}`, text: t.tier }),
      el("span", { class: "counts", text: `${t.items} items · ${t.sources} sources · before: ${t.baseline.join("/")}` }),
    )));
    $("#trending-box").hidden = body.topics.length === 0;
    return body.topics;
  } catch { return []; /* the page works without trending */ }
}

// ---- browse ------------------------------------------------------------------------------------------------

function browseFilters() {
  const form = $("#browse-form");
  const out = {};
  for (const name of FILTER_NAMES) {
    const field = form.elements[name];
    if (!field) continue;
    const value = field.type === "checkbox" ? (field.checked ? "true" : "") : field.value;
    if (value) out[name] = value;
  }
  return out;
}

function setBrowseFilters(filters) {
  const form = $("#browse-form");
  for (const name of FILTER_NAMES) {
    const field = form.elements[name];
    if (!field) continue;
    if (field.type === "checkbox") field.checked = filters[name] === "true";
    else {
      // a preset can be applied before the first browse answer listed the collections
      if (name === "collections" && filters[name]) fillCollections([filters[name]]);
      field.value = filters[name] || (name === "sort" ? "date" : "");
    }
  }
}

function badge(q) {
  const due = q.next_review_date ? (q.overdue_days ? ` · ${q.overdue_days} days overdue` : ` · review ${q.next_review_date}`) : "";
  return el("span", { class: `badge q-${q.badge}`, title: `quality ${q.score} of 100 (cadence −${q.cadence_penalty})`,
                      text: `${q.badge} ${Math.round(q.score)} · ${q.review_status}${due}` });
}

async function loadBrowse(more = false) {
  const params = new URLSearchParams({ ...browseFilters(), limit: String(BROWSE_PAGE) });
  if (more && browseCursor) params.set("cursor", browseCursor);
  $("#browse").setAttribute("aria-busy", "true");
  try {
    const r = await fetch(`/api/browse?${params}`, { headers: authHeaders() });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      $("#browse-status").textContent = body.error ? body.error.message : `browse failed (HTTP ${r.status})`;
      return;
    }
    fillCollections(body.collections || []);
    const rows = body.items.map((it) => el("li", { "data-item": it.item_id, "data-quality": String(it.quality.score) },
      it.url ? el("a", { href: it.url, rel: "noopener", text: it.title }) : el("strong", { text: it.title }), " ",
      badge(it.quality),
      el("div", { class: "meta", text: [it.collection, it.date].filter(Boolean).join(" · ") }),
      el("p", { class: "snippet", text: it.snippet }),
    ));
    if (more) $("#browse-list").append(...rows); else $("#browse-list").replaceChildren(...rows);
    browseCursor = body.next_cursor;
    $("#browse-more").hidden = !browseCursor;
    const shown = $("#browse-list").children.length;
    $("#browse-status").textContent = `${shown} of ${body.total} items · sorted by ${body.sort}`;
  } catch (err) {
    $("#browse-status").textContent = `browse failed: ${err.message}`;
  } finally {
    $("#browse").setAttribute("aria-busy", "false");
  }
}

function fillCollections(names) {
  const select = $("#browse-form").elements.collections;
  const have = new Set([...select.options].map((o) => o.value));
  select.append(...names.filter((n) => !have.has(n)).map((n) => el("option", { value: n, text: n })));
}

// ---- presets -----------------------------------------------------------------------------------------------

function userPresets() {
  try { return JSON.parse(localStorage.getItem(PRESETS_KEY) || "[]"); } catch { return []; }
}

function storePresets(list, undoText) {
  if (undoText) undoStack.push(userPresets());
  localStorage.setItem(PRESETS_KEY, JSON.stringify(list));
  renderPresets();
  if (undoText) { $("#preset-undo-text").textContent = undoText; $("#preset-undo").hidden = false; }
}

function applyPreset(preset) {
  setBrowseFilters(preset.filters);
  for (const b of document.querySelectorAll("#presets .preset")) b.setAttribute("aria-pressed", String(b.dataset.id === preset.id));
  loadBrowse();
}

function renderPresets() {
  const chipFor = (p, own) => el("span", { class: "preset-wrap", "data-id": p.id },
    el("button", { type: "button", class: "chip preset", "data-id": p.id, "aria-pressed": "false", text: p.name,
                   onclick: () => applyPreset(p) }),
    own ? el("button", { type: "button", class: "mini", "aria-label": `Rename ${p.name}`, text: "✎",
                         onclick: () => startRename(p) }) : null,
    own ? el("button", { type: "button", class: "mini", "aria-label": `Delete ${p.name}`, text: "×",
                         onclick: () => storePresets(userPresets().filter((x) => x.id !== p.id), `Deleted “${p.name}”.`) }) : null,
  );
  $("#presets").replaceChildren(...SYSTEM_PRESETS.map((p) => chipFor(p, false)), ...userPresets().map((p) => chipFor(p, true)));
}

function startRename(p) {
  const wrap = $(`#presets .preset-wrap[data-id="${CSS.escape(p.id)}"]`);
  const field = el("input", { type: "text", class: "rename", value: p.name, "aria-label": `New name for ${p.name}`,
                              maxlength: "60" });
  let done = false;  // Enter re-renders the chips, and removing the field fires its blur: commit only once
  const commit = () => {
    if (done) return;
    done = true;
    const name = field.value.trim();
    if (!name || name === p.name) { renderPresets(); return; }
    storePresets(userPresets().map((x) => (x.id === p.id ? { ...x, name } : x)), `Renamed “${p.name}” to “${name}”.`);
  };
  field.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") { ev.preventDefault(); commit(); } else if (ev.key === "Escape") { done = true; renderPresets(); }
  });
  field.addEventListener("blur", commit);
  wrap.replaceChildren(field);
  field.focus();
  field.select();
}

function savePreset() {
  const name = $("#preset-name").value.trim();
  if (!name) { $("#browse-status").textContent = "Name the preset first."; $("#preset-name").focus(); return; }
  const preset = { id: `user-${Date.now().toString(36)}`, name: name.slice(0, 60), filters: browseFilters() };
  storePresets([...userPresets(), preset], null);
  $("#preset-name").value = "";
  $("#browse-status").textContent = `Saved preset “${preset.name}”.`;
}

function undo() {
  const previous = undoStack.pop();
  if (previous) storePresets(previous, null);
  $("#preset-undo").hidden = undoStack.length === 0;
}

// ---- start -------------------------------------------------------------------------------------------------

$("#browse-form").addEventListener("submit", (ev) => { ev.preventDefault(); loadBrowse(); });
$("#browse-more").addEventListener("click", () => loadBrowse(true));
$("#preset-save").addEventListener("click", savePreset);
$("#preset-undo-button").addEventListener("click", undo);
input.addEventListener("input", syncCards);
renderPresets();
// Only the start page shows these; a search (?q=) or chat link opens without spending requests on them.
const startParams = new URLSearchParams(location.search);
if (!startParams.get("q") && startParams.get("mode") !== "chat") (async () => {
  const [topics] = await Promise.all([loadTrending(), loadBrowse()]);
  const names = [...$("#browse-form").elements.collections.options].map((o) => o.value).filter(Boolean);
  renderCards(names, topics);
})();
