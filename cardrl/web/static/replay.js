// The Replay and Compare pages (docs/web.md): a saved game, or two agents on one duplicate deal, move by move.
"use strict";

// ---- replay --------------------------------------------------------------------------------------------------------
const replay = { data: null, id: null, i: 0, timer: null };

function renderReplay() {
  const d = replay.data, frame = d.frames[replay.i];
  $("replay-table").innerHTML = seatsHTML(frame, d.seats_agents) + decisionHTML(frame, false);
  $("replay-slider").value = replay.i;
  $("replay-pos").textContent = `move ${Math.min(replay.i + 1, d.actions.length)} of ${d.actions.length}` + (frame.move ? "" : " (end)");
  $("replay-link").href = setRoute("replay", { record: replay.id, at: replay.i });
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
  const chosen = $("replay-record").value;
  $("replay-record").innerHTML = records.map((r) => `<option value="${esc(r.id)}">${esc(r.name)}</option>`).join("")
    || "<option value=''>no game records given to cardrl serve</option>";
  if (records.some((r) => r.id === chosen)) $("replay-record").value = chosen;
}

async function loadReplay(id, at) {
  stopAutoplay();
  if (!id) throw new Error("no game record: start cardrl serve with a record file or a directory of them");
  const data = await api("GET", `/api/records/${encodeURIComponent(id)}`);
  replay.data = data; replay.id = id;
  replay.i = Math.max(0, Math.min(data.frames.length - 1, Number(at) || 0));
  $("replay-view").hidden = false;
  $("replay-title").textContent = `${data.title}, deal seed ${data.seed}` + (data.label ? `: ${data.label}` : "");
  $("replay-slider").max = data.frames.length - 1;
  $("replay-compare").href = `#compare?${new URLSearchParams({ game: data.game, seed: data.seed, rules: JSON.stringify(formRules(data.game, data.options)) })}`;
  renderReplay();
}

function formRules(game, options) {  // a record's rule options as the Compare form's fields changed from their defaults
  const rules = {};
  for (const r of gameInfo(game).rules.filter((f) => f.compare && f.name in options)) {
    const v = options[r.name];
    const shown = r.kind === "bool" ? Boolean(v) : v === null ? "" : typeof v === "string" ? v : JSON.stringify(v);
    if (String(shown) !== String(r.default)) rules[r.name] = shown;
  }
  return rules;
}

async function openReplay(params) {  // the page opened at an address: the record and move it names
  await loadRecords();
  if (!params.get("record")) return;
  if ([...$("replay-record").options].some((o) => o.value === params.get("record"))) $("replay-record").value = params.get("record");
  if (replay.id !== params.get("record") || replay.i !== Number(params.get("at") || 0)) await loadReplay(params.get("record"), params.get("at"));
}

// ---- compare -------------------------------------------------------------------------------------------------------
const compare = { data: null, request: null, i: 0 };

function renderCompare() {
  const d = compare.data;
  const side = (s) => { const f = s.frames[Math.min(compare.i, s.frames.length - 1)];
    return seatsHTML(f, s.seats_agents) + decisionHTML(f, compare.i === d.first_difference); };
  $("compare-left").innerHTML = side(d.left);
  $("compare-right").innerHTML = side(d.right);
  $("compare-slider").value = compare.i;
  $("compare-pos").textContent = `move ${compare.i + 1}`;
  const r = compare.request;
  $("compare-link").href = setRoute("compare", { game: r.game, a: r.a, b: r.b, seed: r.seed, arrangement: r.arrangement,
    rules: JSON.stringify(r.rules), at: compare.i });
}

function compareSummary(d) {
  const seats = `seat${d.seats.length > 1 ? "s" : ""} ${d.seats.join(", ")}`;  // as the titles name them
  const how = d.first_difference === null ? "The two agents played this deal the same way."
    : `Their play first differs at move ${d.first_difference + 1} (marked).`;
  return `${how} On deal ${d.seed} in ${seats} (${d.label}): ${d.a} scores ${signed(d.a_score)}, ${d.b} in the same `
    + `seats ${signed(d.b_score)}; ${d.a}'s net payoff against ${d.b}: ${signed(d.a_net)}.`;
}

async function runCompare(request, at) {
  $("compare-summary").textContent = "playing ...";
  const d = compare.data = await api("POST", "/api/compare", request);
  compare.request = request;
  compare.i = at !== undefined && at !== null ? Number(at) : d.first_difference === null ? 0 : d.first_difference;
  $("compare-view").hidden = false;
  const seats = `seat${d.seats.length > 1 ? "s" : ""} ${d.seats.join(", ")}`;
  $("compare-left-title").textContent = `${d.a} in ${seats} (${d.label}), ${d.b} in the others`;
  $("compare-right-title").textContent = `${d.b} in ${seats}, ${d.a} in the others`;
  $("compare-slider").max = Math.max(d.left.frames.length, d.right.frames.length) - 1;
  compare.i = Math.max(0, Math.min(Number($("compare-slider").max), compare.i));
  $("compare-summary").textContent = compareSummary(d);
  $("compare-net").className = `net ${d.a_net > 0 ? "pos" : d.a_net < 0 ? "neg" : ""}`;
  $("compare-net").textContent = `${d.a} vs ${d.b}: ${signed(d.a_net)}`;
  renderCompare();
}

function compareForm() {
  return { game: $("compare-game").value, a: $("compare-a").value, b: $("compare-b").value,
           seed: $("compare-seed").value.trim() || "0", arrangement: Number($("compare-arrangement").value || 0),
           rules: rulesOf("compare") };
}

async function openCompare(params) {  // the page opened at an address: fill the form and play the deal it names
  if (!params.get("game") || !gameInfo(params.get("game"))) return;
  const key = params.toString().replace(/&?at=\d+/, "");
  if (compare.key === key) return;
  compare.key = key;
  $("compare-game").value = params.get("game");
  fillGameControls();
  for (const [name, id] of [["a", "compare-a"], ["b", "compare-b"], ["seed", "compare-seed"]]) {
    if (params.get(name) !== null) $(id).value = params.get(name);
  }
  const rules = JSON.parse(params.get("rules") || "{}");
  document.querySelectorAll("#compare-rules .rule").forEach((el) => {
    if (!(el.dataset.name in rules)) return;
    if (el.type === "checkbox") el.checked = Boolean(rules[el.dataset.name]); else el.value = rules[el.dataset.name];
  });
  fillRuleDependent();
  $("compare-arrangement").value = params.get("arrangement") || "0";
  if (params.get("a") !== null && params.get("b") !== null) await runCompare(compareForm(), params.get("at"));
}

function stepCompare(to) {
  if (!compare.data) return;
  compare.i = Math.max(0, Math.min(Number($("compare-slider").max), to));
  renderCompare();
}

function bindReplay() {
  $("replay-load").onclick = () => guarded(() => loadReplay($("replay-record").value, 0));
  $("replay-start").onclick = () => stepReplay(0);
  $("replay-back").onclick = () => stepReplay(replay.i - 1);
  $("replay-fwd").onclick = () => stepReplay(replay.i + 1);
  $("replay-end").onclick = () => stepReplay(1e9);
  $("replay-play").onclick = toggleAutoplay;
  $("replay-speed").onchange = () => { if (replay.timer) { stopAutoplay(); toggleAutoplay(); } };
  $("replay-slider").oninput = (e) => stepReplay(Number(e.target.value));
  $("compare-run").onclick = () => guarded(() => runCompare(compareForm()));
  $("compare-back").onclick = () => stepCompare(compare.i - 1);
  $("compare-fwd").onclick = () => stepCompare(compare.i + 1);
  $("compare-diff").onclick = () => { if (compare.data && compare.data.first_difference !== null) stepCompare(compare.data.first_difference); };
  $("compare-slider").oninput = (e) => stepCompare(Number(e.target.value));
}
