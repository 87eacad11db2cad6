// cardrl serve's pages (docs/web.md): plain JavaScript over the JSON API, no build step.
"use strict";
const $ = (id) => document.getElementById(id);
const SUITS = { d: ["\u2666", true], c: ["\u2663", false], h: ["\u2665", true], s: ["\u2660", false] };
let INFO = null;

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

let pending = 0;

async function api(method, path, body) {
  pending += 1;
  $("busy").hidden = false;
  try { return await request(method, path, body); } finally { pending -= 1; $("busy").hidden = pending === 0; }
}

async function request(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) { options.headers["Content-Type"] = "application/json"; options.body = JSON.stringify(body); }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(err) {
  const box = $("error");
  if (!err) { box.hidden = true; box.textContent = ""; return; }
  box.hidden = false;
  box.textContent = err.message || String(err);
}

async function guarded(fn) {
  try { showError(null); await fn(); } catch (err) { showError(err); }
}

// ---- cards ---------------------------------------------------------------------------------------------------------
function cardHTML(token) {
  const m = token.match(/^(10|[2-9TJQKA])([dchs])(\*?)$/i);
  if (m) {
    const rank = m[1].toUpperCase() === "T" ? "10" : m[1].toUpperCase();
    const [symbol, red] = SUITS[m[2].toLowerCase()];
    return `<span class="c${red ? " red" : ""}${m[3] ? " wild" : ""}" title="${esc(token)}">${rank}${symbol}</span>`;
  }
  if (token === "BJ" || token === "RJ") {
    return `<span class="c joker${token === "RJ" ? " red" : ""}" title="${token === "RJ" ? "red" : "black"} joker">${token}</span>`;
  }
  if (/^[3-9TJQKA2BR]+$/.test(token)) {  // DouDiZhu: ranks without suits, B and R the jokers
    return [...token].map((ch) => ch === "B" || ch === "R" ? cardHTML(ch + "J")
      : `<span class="c">${ch === "T" ? "10" : ch}</span>`).join("");
  }
  return `<span class="word">${esc(token)}</span>`;
}

function cardsHTML(text) {
  if (!text) return "";
  const bracket = text.match(/^(.*?)\s*\[(.*)\](.*)$/);  // GuanDan: "straight 8-Q [8s 9c Ts Jd Qd]"
  if (bracket) return `<span class="word">${esc(bracket[1])}</span>` + cardsHTML(bracket[2]) + esc(bracket[3]);
  if (/^[a-z]/.test(text)) return `<span class="word">${esc(text)}</span>`;  // pass, bid 2, return a card
  return text.split(/\s+/).filter(Boolean).map(cardHTML).join("");
}

function seatsHTML(frame, agents) {
  const cols = frame.seats.length === 4 ? 2 : 3;
  const seats = frame.seats.map((s) => {
    const hand = s.hand !== null ? cardsHTML(s.hand) : `<span class="c hidden">?</span> &times; ${s.left}`;
    const agent = agents && agents[s.seat] !== undefined ? `<span class="agent">${esc(agents[s.seat])}</span>` : "";
    return `<div class="seat${frame.current === s.seat ? " current" : ""}" data-seat="${s.seat}">
      <div class="seat-head"><span>${esc(s.label === `seat ${s.seat}` ? s.label : `${s.label} (seat ${s.seat})`)}</span>${agent}
      <span class="left">${s.left} card${s.left === 1 ? "" : "s"}</span></div>
      <div class="hand">${hand}</div>
      <div class="played">on the table: ${s.table ? cardsHTML(s.table) : "&mdash;"}</div></div>`;
  }).join("");
  const status = (frame.status || []).map((l) => `<div class="status">${esc(l)}</div>`).join("");
  const events = (frame.events || []).length ? `<div class="events">${frame.events.map(esc).join("<br>")}</div>` : "";
  return `${status}${events}<div class="seats" style="grid-template-columns: repeat(${cols}, 1fr)">${seats}</div>`;
}

function valuesHTML(values, chosen) {
  if (!values) return `<div class="status">no values (this agent has none)</div>`;
  const top = Math.max(...values.moves.map((m) => Math.abs(m.value)), 1e-9);
  const name = values.kind === "q" ? "Q" : "probability";
  const rows = values.moves.map((m) => `<tr class="${m.id === chosen ? "chosen" : ""}"><td>${cardsHTML(m.text)}</td>
    <td class="num">${values.kind === "q" ? (m.value >= 0 ? "+" : "") + m.value.toFixed(3) : m.value.toFixed(3)}</td>
    <td style="width:120px"><div class="bar" style="width:${Math.round(100 * Math.abs(m.value) / top)}%"></div></td></tr>`);
  return `<table class="values"><tr><td colspan="3" class="status">${name} of the top moves</td></tr>${rows.join("")}</table>`;
}

function decisionHTML(frame, diff) {
  if (!frame.move) {
    const result = (frame.result || []).map(esc).join("<br>");
    return `<div class="decision result"><h3>Game over</h3>${result}</div>`;
  }
  const m = frame.move;
  return `<div class="decision${diff ? " diff" : ""}"><strong>${esc(m.label)}</strong> plays ${cardsHTML(m.text)}
    ${diff ? '<strong class="diff-mark"> &larr; first difference</strong>' : ""}${valuesHTML(frame.values, m.id)}</div>`;
}

// ---- replay --------------------------------------------------------------------------------------------------------
const replay = { data: null, i: 0, timer: null };

function renderReplay() {
  const d = replay.data, frame = d.frames[replay.i];
  $("replay-table").innerHTML = seatsHTML(frame, d.seats_agents) + decisionHTML(frame, false);
  $("replay-slider").value = replay.i;
  $("replay-pos").textContent = `move ${Math.min(replay.i + 1, d.actions.length)} of ${d.actions.length}` + (frame.move ? "" : " (end)");
}

function stepReplay(to) {
  if (!replay.data) return;
  replay.i = Math.max(0, Math.min(replay.data.frames.length - 1, to));
  renderReplay();
  if (replay.i === replay.data.frames.length - 1) stopAutoplay();
}

function stopAutoplay() { clearInterval(replay.timer); replay.timer = null; $("replay-play").textContent = "Play"; }

function toggleAutoplay() {
  if (replay.timer) return stopAutoplay();
  $("replay-play").textContent = "Pause";
  replay.timer = setInterval(() => stepReplay(replay.i + 1), Number($("replay-speed").value));
}

async function loadRecords() {
  const records = await api("GET", "/api/records");
  $("replay-record").innerHTML = records.map((r) => `<option value="${esc(r.id)}">${esc(r.name)}</option>`).join("")
    || "<option value=''>no game records given to cardrl serve</option>";
}

async function loadReplay() {
  stopAutoplay();
  const id = $("replay-record").value;
  if (!id) throw new Error("no game record: start cardrl serve with a record file or a directory of them");
  replay.data = await api("GET", `/api/records/${encodeURIComponent(id)}`);
  replay.i = 0;
  $("replay-view").hidden = false;
  $("replay-title").textContent = `${replay.data.title}, deal seed ${replay.data.seed}` + (replay.data.label ? `: ${replay.data.label}` : "");
  $("replay-slider").max = replay.data.frames.length - 1;
  renderReplay();
}

// ---- compare -------------------------------------------------------------------------------------------------------
const compare = { data: null, i: 0 };

function renderCompare() {
  const d = compare.data;
  const side = (s) => { const f = s.frames[Math.min(compare.i, s.frames.length - 1)];
    return seatsHTML(f, s.seats_agents) + decisionHTML(f, compare.i === d.first_difference); };
  $("compare-left").innerHTML = side(d.left);
  $("compare-right").innerHTML = side(d.right);
  $("compare-slider").value = compare.i;
  $("compare-pos").textContent = `move ${compare.i + 1}`;
}

async function runCompare() {
  const body = { game: $("compare-game").value, a: $("compare-a").value, b: $("compare-b").value,
                 seed: Number($("compare-seed").value || 0), arrangement: Number($("compare-arrangement").value || 0),
                 rules: rulesOf("compare") };
  $("compare-summary").textContent = "playing ...";
  const d = compare.data = await api("POST", "/api/compare", body);
  compare.i = d.first_difference === null ? 0 : d.first_difference;
  $("compare-view").hidden = false;
  $("compare-left-title").textContent = `${d.a} in seats ${d.seats.join(", ")} (${d.label})`;
  $("compare-right-title").textContent = `${d.b} in seats ${d.seats.join(", ")} (${d.label})`;
  $("compare-slider").max = Math.max(d.left.frames.length, d.right.frames.length) - 1;
  $("compare-summary").textContent = d.first_difference === null
    ? "The two agents played this deal the same way." : `They first differ at move ${d.first_difference + 1} (marked).`
    + ` Payoffs: ${d.a} side ${JSON.stringify(d.left.payoffs)}, ${d.b} side ${JSON.stringify(d.right.payoffs)}.`;
  renderCompare();
}

function stepCompare(to) {
  if (!compare.data) return;
  compare.i = Math.max(0, Math.min(Number($("compare-slider").max), to));
  renderCompare();
}

// ---- play ----------------------------------------------------------------------------------------------------------
const play = { state: null };

function renderPlay() {
  const s = play.state;
  const agents = {}; Object.entries(s.seats_agents).forEach(([k, v]) => { agents[k] = v; }); agents[s.seat] = "you";
  $("play-view").hidden = false;
  $("play-info").textContent = `${gameInfo(s.game).title}, deal seed ${s.seed}; you are seat ${s.seat}.` + (s.failed ? ` Stopped: ${s.failed}` : "")
    + (s.your_turn ? " Your turn." : "");
  $("play-table").innerHTML = seatsHTML(s, agents) + (s.to_beat && !s.over ? `<div class="status">to beat: ${cardsHTML(s.to_beat)}</div>` : "");
  $("play-moves-box").hidden = !s.your_turn;
  const filter = $("play-filter").value.toLowerCase();
  $("play-moves").innerHTML = s.legal.filter((m) => !filter || m.text.toLowerCase().includes(filter))
    .map((m) => `<button class="move" data-id="${m.id}" title="${esc(m.text)}">${cardsHTML(m.text)}</button>`).join("");
  $("play-hints").innerHTML = s.hints ? valuesHTML(s.hints, -1).replace("of the top moves", "hint: the agent's values of your best moves") : "";
  $("play-log").innerHTML = s.log.map((e) => `<li>${esc(e.label)}: ${cardsHTML(e.text)}</li>`).join("");
  const result = $("play-result");
  result.hidden = !s.over;
  if (s.over) result.innerHTML = `<h3>Game over</h3>${(s.result || []).map(esc).join("<br>")}`;
}

async function startPlay() {
  const seed = $("play-seed").value;
  const hint = $("play-hint").value;
  const body = { game: $("play-game").value, seat: Number($("play-seat").value), agent: $("play-agent").value,
                 hint_agent: hint || null, seed: seed === "" ? null : Number(seed), rules: rulesOf("play") };
  if (gameInfo(body.game).match) body.deals = Number($("play-deals").value || 1);
  play.state = await api("POST", "/api/play", body);
  renderPlay();
}

async function sendMove(body) {
  play.state = await api("POST", `/api/play/${encodeURIComponent(play.state.session)}/move`, body);
  $("play-text").value = "";
  renderPlay();
}

// ---- runs ----------------------------------------------------------------------------------------------------------
async function loadRuns() {
  const runs = await api("GET", "/api/runs");
  const rows = runs.map((r) => `<tr><td>${esc(r.name)}</td><td>${esc(r.algo || "")}</td><td>${esc(r.game || "")}</td>
    <td>${r.frames === null ? "" : Number(r.frames).toLocaleString()}</td><td>${esc(r.latest_eval ? JSON.stringify(r.latest_eval).slice(0, 120) : "none yet")}</td>
    <td><button class="report" data-id="${esc(r.id)}">curves and report</button></td></tr>`).join("");
  $("runs-list").innerHTML = runs.length ? `<h2>Runs</h2><table class="data"><tr><th>run</th><th>algorithm</th><th>game</th>
    <th>frames</th><th>latest evaluation</th><th></th></tr>${rows}</table>` : "<p class='summary'>No run directories given to cardrl serve.</p>";
  const leagues = await api("GET", "/api/leagues");
  $("leagues-list").innerHTML = leagues.map((l) => `<h2>League: ${esc(l.name)}</h2><table class="data"><tr>${l.header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>
    ${l.rows.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("")}</table>`).join("");
}

// ---- set-up --------------------------------------------------------------------------------------------------------
function gameInfo(name) { return INFO.games.find((g) => g.name === name); }

function rulesHTML(g, compare) {  // the game's rule options (docs/rules.md); the server checks every value
  return g.rules.filter((r) => !compare || r.compare).map((r) => r.kind === "bool"
    ? `<label><input type="checkbox" class="rule" data-name="${esc(r.name)}" data-default="${r.default}"${r.default ? " checked" : ""}> ${esc(r.name)}</label>`
    : `<label>${esc(r.name)} <input class="rule" size="7" data-name="${esc(r.name)}" data-default="${esc(r.default)}" value="${esc(r.default)}"></label>`).join("");
}

function rulesOf(prefix) {  // the options changed from their defaults
  const rules = {};
  document.querySelectorAll(`#${prefix}-rules .rule`).forEach((el) => {
    const value = el.type === "checkbox" ? el.checked : el.value;
    if (String(value) !== el.dataset.default) rules[el.dataset.name] = value;
  });
  return rules;
}

function bidding(prefix, g) { return Boolean(g.bidding_option && rulesOf(prefix)[g.bidding_option]); }

function fillRuleDependent() {  // the seats and arrangements change when the players bid for their roles
  const c = gameInfo($("compare-game").value), p = gameInfo($("play-game").value);
  const labels = bidding("compare", c) ? c.whole_game_arrangements : c.arrangements;
  $("compare-arrangement").innerHTML = labels.map((l, i) => `<option value="${i}">${esc(l)}</option>`).join("");
  $("play-seat").innerHTML = p.seats.map((s, i) => `<option value="${i}">${i}${bidding("play", p) ? "" : `: ${esc(s)}`}</option>`).join("");
  $("play-deals-box").hidden = !p.match;
}

function fillGameControls() {
  for (const [gameId, prefix] of [["compare-game", "compare"], ["play-game", "play"]]) {
    const g = gameInfo($(gameId).value);
    document.querySelectorAll(`#page-${prefix} .agent-select`).forEach((sel) => {
      const none = sel.dataset.none ? `<option value="">${esc(sel.dataset.none)}</option>` : "";
      sel.innerHTML = none + g.agents.map((a) => `<option value="${esc(a)}">${esc(a)}</option>`).join("");
      if (!sel.dataset.none && g.agents.includes("rule")) sel.value = "rule";
    });
    $(`${prefix}-rules`).innerHTML = rulesHTML(g, prefix === "compare");
    if (prefix === "compare" && g.agents.includes("random")) $("compare-b").value = "random";
  }
  fillRuleDependent();
}

function showPage() {
  const page = (location.hash || "#replay").slice(1);
  document.querySelectorAll(".page").forEach((p) => { p.hidden = p.id !== `page-${page}`; });
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("active", a.dataset.page === page));
  if (page === "runs") guarded(loadRuns);
  if (page === "replay") guarded(loadRecords);
}

function bind() {
  $("replay-load").onclick = () => guarded(loadReplay);
  $("replay-start").onclick = () => stepReplay(0);
  $("replay-back").onclick = () => stepReplay(replay.i - 1);
  $("replay-fwd").onclick = () => stepReplay(replay.i + 1);
  $("replay-end").onclick = () => stepReplay(1e9);
  $("replay-play").onclick = toggleAutoplay;
  $("replay-speed").onchange = () => { if (replay.timer) { stopAutoplay(); toggleAutoplay(); } };
  $("replay-slider").oninput = (e) => stepReplay(Number(e.target.value));
  $("compare-run").onclick = () => guarded(runCompare);
  $("compare-back").onclick = () => stepCompare(compare.i - 1);
  $("compare-fwd").onclick = () => stepCompare(compare.i + 1);
  $("compare-diff").onclick = () => { if (compare.data && compare.data.first_difference !== null) stepCompare(compare.data.first_difference); };
  $("compare-slider").oninput = (e) => stepCompare(Number(e.target.value));
  document.querySelectorAll(".game-select").forEach((s) => { s.onchange = fillGameControls; });
  $("play-start").onclick = () => guarded(startPlay);
  $("play-rules").onchange = fillRuleDependent;
  $("compare-rules").onchange = fillRuleDependent;
  $("play-moves").onclick = (e) => { const b = e.target.closest("button.move"); if (b) guarded(() => sendMove({ action: Number(b.dataset.id) })); };
  $("play-send").onclick = () => guarded(() => sendMove({ text: $("play-text").value }));
  $("play-text").onkeydown = (e) => { if (e.key === "Enter") guarded(() => sendMove({ text: $("play-text").value })); };
  $("play-filter").oninput = () => { if (play.state) renderPlay(); };
  $("runs-list").onclick = (e) => { const b = e.target.closest("button.report"); if (!b) return;
    const frame = $("run-report"); frame.hidden = false; frame.src = `/runs/${encodeURIComponent(b.dataset.id)}/report`; };
  window.addEventListener("hashchange", showPage);
}

async function init() {
  INFO = await api("GET", "/api/info");
  const options = INFO.games.map((g) => `<option value="${esc(g.name)}">${esc(g.title)}</option>`).join("");
  document.querySelectorAll(".game-select").forEach((s) => { s.innerHTML = options; });
  fillGameControls();
  bind();
  showPage();
}

guarded(init);
