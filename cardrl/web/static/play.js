// The Play page (docs/web.md): your hand as cards to click, Play / Pass / Clear / Hint, deal after deal.
"use strict";
// selected: indices into state.my_cards; chosen: the move a hint or a listed move selected (it tells apart moves of
// the same cards, such as a GuanDan wild card standing for different ranks); cursor: the Hint button's place.
// message and offered: why the last move was refused, and the legal moves offered instead.
const play = { state: null, selected: new Set(), chosen: null, cursor: -1, offered: null, message: "" };

function tokensOf(indices) { return [...indices].sort((x, y) => x - y).map((i) => play.state.my_cards[i].token); }

function sameCards(a, b) { return a.length === b.length && [...a].sort().join(" ") === [...b].sort().join(" "); }

function legalMove(id) { return play.state.legal.find((m) => m.id === id); }

function usable(token) { return play.state.legal.some((m) => m.cards.includes(token)); }

function selectMove(id) {  // a hint, a listed move or an offered one: its cards selected, the move remembered
  const move = legalMove(id);
  if (!move) return;
  const free = play.state.my_cards.map((c, i) => i);
  play.selected = new Set();
  for (const token of move.cards) {
    const i = free.find((j) => !play.selected.has(j) && play.state.my_cards[j].token === token);
    if (i !== undefined) play.selected.add(i);
  }
  play.chosen = id;
  renderPlay();
}

function toggleCard(i) {
  if (play.selected.has(i)) play.selected.delete(i); else play.selected.add(i);
  play.chosen = null;
  renderPlay();
}

function clearSelection() { play.selected = new Set(); play.chosen = null; play.offered = null; play.message = ""; renderPlay(); }

function hintNext() {  // the hint agent's best moves in turn; without one, every legal move but the pass in turn
  const s = play.state;
  const ids = s.hints ? s.hints.moves.map((m) => m.id) : s.legal.filter((m) => m.cards.length).map((m) => m.id);
  if (!ids.length) return;
  play.cursor = (play.cursor + 1) % ids.length;
  selectMove(ids[play.cursor]);
}

function selectionBody() {
  const tokens = tokensOf(play.selected);
  const chosen = play.chosen !== null ? legalMove(play.chosen) : null;
  if (chosen && sameCards(chosen.cards, tokens)) return { action: chosen.id };
  if (!tokens.length) throw new Error("no cards selected: click the cards to play (or Hint), or Pass");
  return { cards: tokens };
}

function handHTML(s) {
  return s.my_cards.map((c, i) => {
    const f = cardFace(c.token);
    const marks = c.marks.map((m) => ` ${m}`).join("");
    const off = s.your_turn && !usable(c.token) ? " off" : "";
    return `<button class="card${f.cls}${marks}${play.selected.has(i) ? " selected" : ""}${off}" data-i="${i}"
      title="${esc(c.token)}${c.marks.length ? " (" + c.marks.join(", ") + ")" : ""}"${s.your_turn ? "" : " disabled"}>
      <span class="rank">${f.rank}</span><span class="suit">${f.suit}</span></button>`;
  }).join("");
}

function selectedText(s) {
  const tokens = tokensOf(play.selected);
  if (!tokens.length && s.your_turn && !s.legal.some((m) => m.cards.length)) return "No move plays cards now: choose one of the buttons.";
  if (!tokens.length) return s.your_turn ? "Click cards to select them." : "";
  const exact = s.legal.filter((m) => sameCards(m.cards, tokens));
  const which = play.chosen !== null && exact.some((m) => m.id === play.chosen) ? legalMove(play.chosen) : exact.length === 1 ? exact[0] : null;
  return `Selected: ${tokens.join(" ")}` + (which ? ` \u2192 ${which.text}` : exact.length > 1 ? ` (${exact.length} moves: Play lists them)` : "");
}

function scoreText(s) {
  const sc = s.score;
  const games = `${sc.games} game${sc.games === 1 ? "" : "s"} finished`;
  const match = !s.over && s.deal_over === null && sc.this_game !== 0 ? `; this game so far ${signed(sc.this_game, 0)}` : "";
  return `Session: ${games}, your total ${signed(sc.total, sc.total % 1 ? 2 : 0)}${match}.`;
}

function renderPlay() {
  const s = play.state;
  const agents = {}; Object.entries(s.seats_agents).forEach(([k, v]) => { agents[k] = v; }); agents[s.seat] = "you";
  const me = s.seats[s.seat];
  $("play-view").hidden = false;
  $("play-info").textContent = `${gameInfo(s.game).title}, deal seed ${s.seed}; you are ${seatName(me)}.`
    + (s.failed ? ` Stopped: ${s.failed}` : s.your_turn ? " Your turn." : "");
  $("play-score").textContent = scoreText(s);
  $("play-table").innerHTML = seatsHTML(s, agents, s.seat)
    + (s.to_beat && !s.over ? `<div class="status">to beat: ${cardsHTML(s.to_beat)}</div>` : "");
  $("play-mine").hidden = s.over;
  $("play-hand").innerHTML = handHTML(s);
  $("play-controls").hidden = !s.your_turn;
  $("play-selected").textContent = selectedText(s);
  const pass = s.legal.find((m) => !m.cards.length && /pass/.test(m.text));
  $("play-pass").disabled = !pass;
  $("play-words").innerHTML = s.legal.filter((m) => !m.cards.length && m !== pass)
    .map((m) => `<button class="move word-move" data-id="${m.id}">${esc(m.text)}</button>`).join("");
  $("play-hints").innerHTML = s.hints ? valuesHTML(s.hints, play.chosen, "hint: the agent's values of your best moves (click one to select it)") : "";
  $("play-offered").innerHTML = offeredHTML();
  renderMoveList(s);
  $("play-log").innerHTML = s.log.map((e) => `<li>${esc(e.label)}: ${cardsHTML(e.text)}</li>`).join("");
  renderResult(s);
}

function offeredHTML() {
  const o = play.offered;
  const message = play.message ? `<div class="refused">${esc(play.message)}</div>` : "";
  if (!o || !o.moves.length) return message;
  const head = o.kind === "choices" ? "Which move do you mean? Click one, then Play:" : "Legal moves with these cards (click one to select it):";
  return `${message}<span class="status">${head}</span> ` + o.moves.map((m) => `<button class="move" data-id="${m.id}" title="${esc(m.text)}">${cardsHTML(m.text)}</button>`).join("");
}

function renderMoveList(s) {  // drawn only while open: a GuanDan lead has over 2,000 legal moves
  $("play-count").textContent = s.legal.length;
  if (!$("play-all").open) { $("play-moves").innerHTML = ""; return; }
  const filter = $("play-filter").value.toLowerCase();
  $("play-moves").innerHTML = s.legal.map((m, i) => [m, i]).filter(([m]) => !filter || m.text.toLowerCase().includes(filter))
    .map(([m, i]) => `<button class="move" data-id="${m.id}" title="${esc(m.text)}"><span class="num">#${i + 1}</span> ${cardsHTML(m.text)}</button>`).join("");
}

function renderResult(s) {
  const box = $("play-result");
  box.hidden = !s.over && s.deal_over === null;
  if (box.hidden) return;
  const lines = s.over ? s.result : s.deal_over;
  $("play-result-title").textContent = s.over ? "Game over" : "Deal over";
  $("play-result-lines").innerHTML = (lines || []).map(esc).join("<br>");
  $("play-result-score").textContent = scoreText(s);
  $("play-next").textContent = s.over ? "Next deal" : "Next deal of the match";
}

function newState(state) {
  const turn = play.state && play.state.log.length;
  play.state = state;
  if (!state.your_turn || state.log.length !== turn) { play.selected = new Set(); play.chosen = null; play.cursor = -1; }
  play.offered = null;
  play.message = "";
  renderPlay();
}

async function startPlay() {
  const seed = $("play-seed").value.trim();
  const hint = $("play-hint").value;
  const body = { game: $("play-game").value, seat: Number($("play-seat").value), agent: $("play-agent").value,
                 hint_agent: hint || null, seed: seed === "" ? null : seed, rules: rulesOf("play") };
  if (gameInfo(body.game).match) body.deals = Number($("play-deals").value || 1);
  play.state = null;
  newState(await api("POST", "/api/play", body));
}

async function sendMove(body) {  // a refused move (400) is explained beside the cards; the game goes on
  try {
    newState(await api("POST", `/api/play/${encodeURIComponent(play.state.session)}/move`, body));
    $("play-text").value = "";
  } catch (err) {
    if (err.status !== 400) throw err;
    play.message = err.message;
    play.offered = err.data.moves ? { kind: err.data.moves_kind, moves: err.data.moves } : null;
    renderPlay();
  }
}

async function refreshPlay() {  // the game's state asked again (an agent refused for now goes on once it is free)
  newState(await api("GET", `/api/play/${encodeURIComponent(play.state.session)}`));
}

async function nextDeal() {
  newState(await api("POST", `/api/play/${encodeURIComponent(play.state.session)}/next`));
}

function bindPlay() {
  $("play-start").onclick = () => guarded(startPlay);
  $("play-hand").onclick = (e) => { const b = e.target.closest("button.card"); if (b) toggleCard(Number(b.dataset.i)); };
  $("play-go").onclick = () => guarded(() => sendMove(selectionBody()));
  $("play-pass").onclick = () => guarded(() => sendMove({ text: "pass" }));
  $("play-clear").onclick = () => { showError(null); clearSelection(); };
  $("play-hint-button").onclick = () => { showError(null); hintNext(); };
  $("play-words").onclick = (e) => { const b = e.target.closest("button.move"); if (b) guarded(() => sendMove({ action: Number(b.dataset.id) })); };
  for (const id of ["play-hints", "play-offered", "play-moves"]) {
    $(id).onclick = (e) => { const el = e.target.closest("[data-id]"); if (el) { showError(null); selectMove(Number(el.dataset.id)); } };
  }
  $("play-send").onclick = () => guarded(() => sendMove({ text: $("play-text").value }));
  $("play-text").onkeydown = (e) => { if (e.key === "Enter") guarded(() => sendMove({ text: $("play-text").value })); };
  $("play-filter").oninput = () => { if (play.state) renderMoveList(play.state); };
  $("play-all").ontoggle = () => { if (play.state) renderMoveList(play.state); };
  $("play-next").onclick = () => guarded(nextDeal);
}
