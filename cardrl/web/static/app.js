// cardrl serve's pages (docs/web.md): the Runs page, the forms' set-up, the pages' addresses and the start.
"use strict";

// ---- runs ----------------------------------------------------------------------------------------------------------
function runHTML(r) {
  const evals = r.latest_eval_lines.length ? r.latest_eval_lines.map((l) => `<li class="${l.startsWith("+") ? "pos" : l.startsWith("-") ? "neg" : ""}">${esc(l)}</li>`).join("")
    : "<li>no evaluation yet</li>";
  const frames = r.frames === null ? "" : `, ${Number(r.frames).toLocaleString("en")} frames`;
  return `<div class="run" data-id="${esc(r.id)}">
    <div class="run-head"><h3 title="${esc(r.name)}">${esc(r.name)}</h3>
      <span class="status">${esc((r.algo || "").toUpperCase())}${r.game ? " on " + esc(r.game) : ""}${frames}, ${r.iterations} iterations${r.checkpoint ? ", checkpoint: agent " + esc(r.id) : ""}</span>
      <a class="report" href="/runs/${encodeURIComponent(r.id)}/report" target="_blank" rel="noopener">full report &#x2197;</a></div>
    <div class="run-body"><div><div class="status">latest evaluation (side A's score, 95% interval)</div><ul class="evals">${evals}</ul></div>
      <img class="curves" loading="lazy" alt="learning curves of ${esc(r.name)}" src="/runs/${encodeURIComponent(r.id)}/curves.png"></div></div>`;
}

function tableNumber(cell) { return /^-?\d+\.\d+$/.test(cell) ? Number(cell).toFixed(3) : cell; }  // a league table's

async function loadRuns() {
  const runs = await api("GET", "/api/runs");
  $("runs-list").innerHTML = runs.length ? `<h2>Runs</h2>${runs.map(runHTML).join("")}`
    : "<p class='summary'>No run directories given to cardrl serve.</p>";
  const leagues = await api("GET", "/api/leagues");
  $("leagues-list").innerHTML = leagues.map((l) => `<h2>League: ${esc(l.name)}</h2><table class="data"><tr>${l.header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>
    ${l.rows.map((row) => `<tr>${row.map((c) => `<td${/^-?\d+\.\d+$/.test(c) ? ' class="num"' : ""}>${esc(tableNumber(c))}</td>`).join("")}</tr>`).join("")}</table>`).join("");
}

// ---- set-up --------------------------------------------------------------------------------------------------------
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
      sel.innerHTML = none + g.agents.map((a) => `<option value="${esc(a)}" title="${esc(a)}">${esc(a)}</option>`).join("");
      // the Play page's opponents and hints: the game's default agent (the zoo agent when it beats the rule agent)
      const preferred = prefix === "play" ? g.default_agent : "rule";
      if ((!sel.dataset.none || prefix === "play") && g.agents.includes(preferred)) sel.value = preferred;
    });
    $(`${prefix}-rules`).innerHTML = rulesHTML(g, prefix === "compare");
    if (prefix === "compare" && g.agents.includes("random")) $("compare-b").value = "random";
  }
  fillRuleDependent();
}

function showPage() {
  const { page, params } = route();
  document.querySelectorAll(".page").forEach((p) => { p.hidden = p.id !== `page-${page}`; });
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("active", a.dataset.page === page));
  if (page === "runs") guarded(loadRuns);
  if (page === "replay") guarded(() => openReplay(params));
  if (page === "compare") guarded(() => openCompare(params));
}

function bind() {
  bindReplay();
  bindPlay();
  document.querySelectorAll(".game-select").forEach((s) => { s.onchange = fillGameControls; });
  $("play-rules").onchange = fillRuleDependent;
  $("compare-rules").onchange = fillRuleDependent;
  window.addEventListener("hashchange", showPage);
}

async function init() {
  PAGE.info = await api("GET", "/api/info");
  const options = PAGE.info.games.map((g) => `<option value="${esc(g.name)}">${esc(g.title)}</option>`).join("");
  document.querySelectorAll(".game-select").forEach((s) => { s.innerHTML = options; });
  fillGameControls();
  bind();
  showPage();
}

guarded(init);
