// cardrl serve's pages (docs/web.md): what every page uses. Plain JavaScript over the JSON API, no build step.
"use strict";
const $ = (id) => document.getElementById(id);
const SUITS = { d: ["\u2666", true], c: ["\u2663", false], h: ["\u2665", true], s: ["\u2660", false] };
const PAGE = { info: null };

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
  if (!response.ok) {
    const err = new Error(data.error || `HTTP ${response.status}`);
    err.data = data;
    err.status = response.status;
    throw err;
  }
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

function signed(x, digits = 2) { return (x > 0 ? "+" : x < 0 ? "\u2212" : "\u00b1") + Math.abs(x).toFixed(digits); }

// ---- cards ---------------------------------------------------------------------------------------------------------
// A card's token is the game's notation of it: "5h", "5h*" (GuanDan's wild heart), "BJ"/"RJ", or a DouDiZhu rank
// "3", "T", "B", "R" (no suits). cardFace gives its rank, suit symbol and classes.
function cardFace(token) {
  const m = token.match(/^(10|[2-9TJQKA])([dchs])(\*?)$/i);
  if (m) {
    const [symbol, red] = SUITS[m[2].toLowerCase()];
    const rank = m[1].toUpperCase() === "T" ? "10" : m[1].toUpperCase();
    return { rank, suit: symbol, cls: (red ? " red" : "") + (m[3] ? " wild" : ""), title: token };
  }
  if (token === "BJ" || token === "B") return { rank: "BJ", suit: "", cls: " joker", title: "black joker" };
  if (token === "RJ" || token === "R") return { rank: "RJ", suit: "", cls: " joker red", title: "red joker" };
  return { rank: token === "T" ? "10" : token, suit: "", cls: "", title: token };
}

function cardHTML(token) {
  if (/^(10|[2-9TJQKA])[dchs]\*?$/i.test(token) || token === "BJ" || token === "RJ") {
    const f = cardFace(token);
    return `<span class="c${f.cls}" title="${esc(f.title)}">${f.rank}${f.suit}</span>`;
  }
  if (/^[3-9TJQKA2BR]+$/.test(token)) {  // DouDiZhu: ranks without suits, B and R the jokers
    return [...token].map((ch) => { const f = cardFace(ch); return `<span class="c${f.cls}" title="${esc(f.title)}">${f.rank}</span>`; }).join("");
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

// ---- the table -----------------------------------------------------------------------------------------------------
function seatName(s) { return s.label === `seat ${s.seat}` ? s.label : `${s.label} (seat ${s.seat})`; }

function seatsHTML(frame, agents, mine) {
  const cols = frame.seats.length === 4 ? 2 : 3;
  const seats = frame.seats.map((s) => {
    const hand = s.seat === mine && !frame.over ? `<span class="word">your cards are below</span>`
      : s.hand !== null ? cardsHTML(s.hand) : `<span class="c hidden">?</span> &times; ${s.left}`;
    const name = agents && agents[s.seat] !== undefined ? agents[s.seat] : null;
    const agent = name !== null ? `<span class="agent" title="${esc(name)}">${esc(name)}</span>` : "";
    return `<div class="seat${frame.current === s.seat ? " current" : ""}" data-seat="${s.seat}">
      <div class="seat-head"><span>${esc(seatName(s))}</span>${agent}
      <span class="left">${s.left} card${s.left === 1 ? "" : "s"}</span></div>
      <div class="hand">${hand}</div>
      <div class="played">on the table: ${s.table ? cardsHTML(s.table) : "&mdash;"}</div></div>`;
  }).join("");
  const status = (frame.status || []).map((l) => `<div class="status">${esc(l)}</div>`).join("");
  const events = (frame.events || []).length ? `<div class="events">${frame.events.map(esc).join("<br>")}</div>` : "";
  return `${status}${events}<div class="seats" style="grid-template-columns: repeat(${cols}, minmax(0, 1fr))">${seats}</div>`;
}

// A bar per move: Q-values are placed between the lowest and the highest shown (so the best move has the longest bar
// whatever the signs), probabilities against the largest.
function barWidths(values) {
  const v = values.moves.map((m) => m.value);
  if (values.kind !== "q") { const top = Math.max(...v, 1e-9); return v.map((x) => 100 * Math.max(x, 0) / top); }
  const lo = Math.min(...v), hi = Math.max(...v);
  return v.map((x) => hi - lo < 1e-12 ? 100 : 8 + 92 * (x - lo) / (hi - lo));
}

function valuesHTML(values, chosen, title) {
  if (!values) return `<div class="status">no values (this agent has none)</div>`;
  const widths = barWidths(values);
  const name = values.kind === "q" ? "Q" : "probability";
  const rows = values.moves.map((m, i) => `<tr class="${m.id === chosen ? "chosen" : ""}" data-id="${m.id}"><td>${cardsHTML(m.text)}</td>
    <td class="num">${values.kind === "q" ? signed(m.value, 3) : m.value.toFixed(3)}</td>
    <td class="barcell"><div class="bar${values.kind === "q" && m.value < 0 ? " neg" : ""}" style="width:${widths[i].toFixed(1)}%"></div></td></tr>`);
  return `<table class="values"><tr><td colspan="3" class="status">${esc(title || `${name} of the top moves`)}</td></tr>${rows.join("")}</table>`;
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

// ---- addresses -----------------------------------------------------------------------------------------------------
// A page's address is "#page?key=value&...": a replay at a move or a compared deal can be shared as a link.
function route() {
  const [page, query] = (location.hash || "#replay").slice(1).split("?");
  return { page: page || "replay", params: new URLSearchParams(query || "") };
}

function setRoute(page, params) {
  const query = new URLSearchParams(params).toString();
  history.replaceState(null, "", `#${page}${query ? "?" + query : ""}`);
  return location.href;
}

function gameInfo(name) { return PAGE.info.games.find((g) => g.name === name); }
