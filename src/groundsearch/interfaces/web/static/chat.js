// groundsearch chat mode (/?mode=chat): one conversation painted from the SSE stream of POST /api/chat?stream=true.
// Events: the search stages, then dossier, token, discovery, handoff, audit, reply, complete, error. Uses el(),
// readEvents(), authHeaders() and flashTo() from app.js. Text is always set as text, never as HTML: a reply is model output.
"use strict";

const MARKER_TEXT = "[could not verify this claim against the provided sources]";
const CHAT_EXAMPLES = ["What does hybrid search combine?", "Which release added reranking?",
                       "We index 2 million documents: which retrieval setup fits?"];

const chat = { id: null, busy: false, abort: null, shown: null };

function chatMode() { return new URLSearchParams(location.search).get("mode") === "chat"; }

// ---- rendering a reply: paragraphs, lines, links, [n] citations and audit markers ------------------------------

const INLINE = /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)|\[could not verify this claim against the provided sources\]|\[(\d{1,2})\]/g;

function inline(text, turn) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[2]) out.push(el("a", { href: m[2], target: "_blank", rel: "noopener", text: m[1] }));
    else if (m[3]) out.push(sourceCite(Number(m[3]), turn));
    else out.push(el("span", { class: "marker", role: "note", title: "the auditor withheld this claim",
                               text: "could not verify this claim against the provided sources" }));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

// [n] numbers a turn's own dossier: an older turn's citation first brings its dossier back into the panel
function sourceCite(n, turn) {
  return el("button", {
    type: "button", class: "cite", "data-source": String(n), title: `source ${n}`, text: `[${n}]`,
    onclick: () => {
      if (turn && turn.dossier && chat.shown !== turn.dossier) renderDossier(turn.dossier);
      flashTo(document.getElementById(`src-${n}`));
    },
  });
}

function paragraph(text, index, turn) {
  const p = el("p", { "data-paragraph": String(index) });
  text.split("\n").forEach((line, i) => {
    if (i) p.append(el("br"));
    p.append(...inline(line.replace(/^#{1,6}\s+/, ""), turn));
  });
  return p;
}

const paragraphsOf = (text) => text.split(/\n\s*\n/).filter((t) => t.trim());

function paintText(turn, text) {
  turn.text.replaceChildren(...paragraphsOf(text).map((t, i) => paragraph(t, i, turn)));
}

// Streamed text is provisional until its paragraph's audit event settles it: a settled paragraph is never
// repainted from tokens, an unsettled one is shown marked as not yet checked.
function paintStream(turn) {
  paragraphsOf(turn.streamed).forEach((t, i) => {
    if (turn.settled.has(i)) return;
    const old = turn.text.querySelector(`p[data-paragraph="${i}"]`);
    const fresh = paragraph(t, i, turn);
    fresh.classList.add("provisional");
    fresh.title = "not yet checked against the sources";
    if (old) old.replaceWith(fresh); else turn.text.append(fresh);
  });
}

// ---- one turn ------------------------------------------------------------------------------------------------

function bubble(role, ...kids) {
  const li = el("li", { class: `turn ${role}` }, el("div", { class: "bubble" }, ...kids));
  $("#turns").append(li);
  li.scrollIntoView({ block: "end" });
  return li;
}

function startTurn(message) {
  $("#welcome").hidden = true;
  bubble("user", el("p", { text: message }));
  const text = el("div", { class: "reply-text" });
  const status = el("p", { class: "status", text: "Retrieving sources…" });
  const li = bubble("assistant", text, el("div", { class: "extras" }), status);
  li.setAttribute("aria-busy", "true");
  return { li, text, extras: li.querySelector(".extras"), status, streamed: "", settled: new Set() };
}

function renderDossier(d) {
  const chipsOf = (box, items, cls) => box.replaceChildren(...items.map((t) => el("span", { class: `chip ${cls}`, text: t })));
  chipsOf($("#dossier-entities"), (d.retrieval_entities || []).map((e) => `${e.field}: ${e.value}`), "entity");
  chipsOf($("#dossier-signals"), (d.qualification_signals || []).map((s) => `${s.signal}: ${s.value}`), "signal");
  $("#dossier-sources").replaceChildren(...(d.sources || []).map((s) => el("li", { id: `src-${s.n}`, value: String(s.n) },
    s.url ? el("a", { href: s.url, target: "_blank", rel: "noopener", text: s.title }) : el("strong", { text: s.title }),
    el("div", { class: "meta", text: s.collection || "" }))));
  $("#dossier").hidden = false;
  chat.shown = d;
}

function renderBlock(b) {
  if (b.valid === false) return el("div", { class: "block notice", text: b.fallback || `could not render: ${b.error}` });
  const title = { "evidence-card": "Evidence", "phased-plan": "Plan", "risk-list": "Risks",
                  recommendation: "Recommendation", mermaid: "Diagram" }[b.type] || b.type;
  const body = el("div", { class: "block card", "data-block": b.type }, el("strong", { text: title }));
  if (b.type === "evidence-card") body.append(el("p", { text: `[${b.source}] ${b.title}: ${b.excerpt || ""}` }));
  else if (b.type === "phased-plan") for (const p of b.phases || []) body.append(el("p", { text: `${p.name}: ${(p.steps || []).join("; ")}` }));
  else if (b.type === "risk-list") for (const r of b.risks || []) body.append(el("p", { text: `${r.severity}: ${r.risk} — ${r.mitigation}` }));
  else if (b.type === "recommendation") body.append(el("p", { text: `${b.verdict}: ${b.rationale}` }));
  else if (b.type === "mermaid") body.append(el("pre", { text: b.source || b.code || "" }));
  return body;
}

function onChatEvent(turn, name, data) {
  switch (name) {
    case "results": turn.status.textContent = `${(data.results || []).length} sources found; preparing the dossier…`; break;
    case "dossier": turn.dossier = data; renderDossier(data); turn.status.textContent = "Composing the answer…"; break;
    case "token":
      turn.streamed += data.text || "";
      paintStream(turn);
      turn.status.textContent = "Writing; each paragraph is checked against the sources as it completes…";
      break;
    case "discovery":
      turn.extras.append(el("div", { class: "card discovery", role: "status", "data-signal": data.signal || "" },
        el("strong", { text: "A question back" }), el("p", { text: data.question || "" })));
      break;
    case "handoff":
      turn.extras.append(el("div", { class: "card handoff", role: "status", "data-target": data.target || "" },
        el("strong", { text: `Handing over to ${data.target}` }),
        data.scope_summary ? el("p", { text: data.scope_summary }) : null,
        (data.signals || []).length ? el("p", { class: "meta", text: `signals: ${data.signals.join("; ")}` }) : null));
      break;
    case "audit": onAudit(turn, data); break;
    case "reply":  // the whole audited reply: the final word, whatever streamed before it
      paintText(turn, data.text || "");
      if (data.audit) auditNote(turn, data.audit);
      for (const b of data.render || []) turn.extras.append(renderBlock(b));
      break;
    case "complete":
      chat.id = data.conversation_id || chat.id;
      turn.li.setAttribute("aria-busy", "false");
      turn.status.textContent = `${Math.round(data.total_latency_ms || 0)} ms` +
        (data.assistant ? ` · ${data.assistant}` : "") + ((data.degraded || []).length ? ` · ${data.degraded.join("; ")}` : "");
      break;
    case "error": showChatError(turn, data.error ? data.error.message : "the turn failed"); break;
    default: break;
  }
}

// An audit event either settles one paragraph while streaming ({paragraph, text, replaced}: earlier paragraphs
// stay, this one is swapped) or the whole reply ({text, marked, rerolls}); the note says what the auditor did.
function onAudit(turn, data) {
  if (Number.isInteger(data.paragraph)) {
    const old = turn.text.querySelector(`p[data-paragraph="${data.paragraph}"]`);
    const fresh = paragraph(data.text || "", data.paragraph, turn);
    if (old && data.replaced) old.replaceWith(fresh);
    else if (old) { old.classList.remove("provisional"); old.removeAttribute("title"); }
    else turn.text.append(fresh);
    turn.settled.add(data.paragraph);
    return;  // the turn's note comes with the reply, which carries the whole audit
  }
  if (data.text != null) paintText(turn, data.text);
  auditNote(turn, data);
}

function auditNote(turn, data) {
  let text = null;
  if (data.ran === false) text = `not audited: ${data.reason || "auditor unavailable"}`;
  else if (data.marked || data.rerolls) text = `auditor: ${data.marked || 0} claim(s) marked, ${data.rerolls || 0} reroll(s)`;
  const old = turn.extras.querySelector(".audit-note");
  if (text === null) { if (old) old.remove(); return; }
  const note = el("p", { class: "audit-note", text });
  if (old) old.replaceWith(note); else turn.extras.append(note);
}

function showChatError(turn, message) {
  turn.extras.append(el("div", { class: "notice error", role: "alert", text: message }));
  turn.li.setAttribute("aria-busy", "false");
  turn.status.textContent = "";
}

async function sendChat(message) {
  if (chat.busy) return;
  chat.busy = true;
  const turn = startTurn(message);
  chat.abort = new AbortController();
  try {
    const r = await fetch("/api/chat?stream=true", {
      method: "POST", signal: chat.abort.signal,
      headers: { "Content-Type": "application/json", Accept: "text/event-stream", ...authHeaders() },
      body: JSON.stringify(chat.id ? { message, conversation_id: chat.id } : { message }),
    });
    if (!r.ok) {
      const body = await r.json().catch(() => ({}));
      showChatError(turn, body.error ? body.error.message : `chat failed (HTTP ${r.status})`);
      return;
    }
    await readEvents(r.body, (name, data) => onChatEvent(turn, name, data));
  } catch (err) {
    if (err.name !== "AbortError") showChatError(turn, `chat failed: ${err.message}`);
  } finally {
    chat.busy = false;
  }
}

// ---- start ---------------------------------------------------------------------------------------------------

if (chatMode()) {
  for (const id of ["#start", "#results", "#search-form"]) $(id).hidden = true;
  $("#chat").hidden = false;
  $("#mode-search").removeAttribute("aria-current");
  $("#mode-chat").setAttribute("aria-current", "page");
  $("#chat-examples").replaceChildren(...CHAT_EXAMPLES.map((t) => el("button", {
    type: "button", class: "chip", text: t, onclick: () => { $("#chat-input").value = t; $("#chat-send").click(); },
  })));
  const box = $("#chat-input");
  $("#chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = box.value.trim();
    if (text && !chat.busy) { box.value = ""; sendChat(text); }
  });
  box.addEventListener("keydown", (ev) => {   // Enter sends, Shift+Enter is a new line
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); $("#chat-form").requestSubmit(); }
  });
  box.focus();
}
