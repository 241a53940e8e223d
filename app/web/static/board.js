// The web board's page: four tabs over the JSON API of app/web/api.py. Plain JavaScript, no build step.
// The boards are engine/records/svg.py's pictures; this file adds the move arrows, the clicks and the tables.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const PROBABILITIES = ["Win", "W(g)", "W(bg)", "L(g)", "L(bg)"];
const BAR = 25;
const OFF = 0;

const $ = (id) => document.getElementById(id);

// -- talking to the server -------------------------------------------------------------------

async function request(path, options = {}) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new Error(body.detail || `${response.status} ${response.statusText}`);
  }
  return body;
}

function query(params) {
  const present = Object.entries(params).filter(([, value]) => value !== undefined && value !== null);
  return new URLSearchParams(present).toString();
}

const get = (path, params) => request(`${path}?${query(params)}`);

const postJson = (path, body) =>
  request(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

// Runs ``work`` and shows its failure (the API's one-line reason) in ``messageId``.
async function guarded(messageId, work) {
  say(messageId, "");
  try {
    await work();
  } catch (error) {
    say(messageId, error.message);
  }
}

function say(messageId, text, info = false) {
  const message = $(messageId);
  message.textContent = text;
  message.classList.toggle("info", info);
}

// -- small builders ------------------------------------------------------------------------

function make(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "onclick") node.addEventListener("click", value);
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

function svgNode(tag, attributes = {}, text = undefined) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// A table; ``rows`` are {cells, className, onclick}.
function table(headers, rows) {
  const head = make("tr", {}, ...headers.map((text) => make("th", {}, text)));
  const body = rows.map((row) => {
    const attributes = row.className ? { class: row.className } : {};
    if (row.onclick) attributes.onclick = row.onclick;
    return make("tr", attributes, ...row.cells.map((cell) => make("td", {}, cell)));
  });
  return make("table", {}, make("thead", {}, head), make("tbody", {}, ...body));
}

const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);
const percent = (p) => (100 * p).toFixed(1) + "%";
const rollText = (dice) => `${dice[0]}-${dice[1]}`;
const pointName = (point) => (point === BAR ? "bar" : point === OFF ? "off" : String(point));

// -- the SVG boards ------------------------------------------------------------------------

function showBoard(containerId, svgText) {
  $(containerId).innerHTML = svgText; // engine/records/svg.py escapes every text it draws
  return $(containerId).querySelector("svg");
}

function box(svg, selector) {
  return svg.querySelector(selector).getBBox();
}

// Where an arrow starts or ends for ``point`` (25 the bar; 0 the tray: borne off, or still to enter), in the picture's units.
function spot(svg, point) {
  if (point === BAR || point === OFF) {
    const place = box(svg, point === BAR ? "rect.bar" : "rect.tray");
    return [place.x + place.width / 2, place.y + place.height * 0.75]; // the mover's half of the bar and tray
  }
  const triangle = box(svg, `polygon.point[data-point="${point}"]`);
  const top = point >= 13;
  return [triangle.x + triangle.width / 2, top ? triangle.y + 20 : triangle.y + triangle.height - 20];
}

function arrowhead(svg) {
  if (svg.querySelector("#arrowhead")) return;
  const marker = svgNode("marker", { id: "arrowhead", viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 4,
    markerHeight: 4, orient: "auto-start-reverse" });
  marker.append(svgNode("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }));
  const defs = svgNode("defs");
  defs.append(marker);
  svg.prepend(defs);
}

// The steps of a move, [from, to] pairs, drawn as arrows over the board. Each arrow bows towards the middle
// of the board by a third of its length, so that steps along one row (8/5 6/5) stay apart.
function drawArrows(svg, steps) {
  arrowhead(svg);
  const bar = box(svg, "rect.bar");
  const middle = bar.y + bar.height / 2;
  for (const [from, to] of steps) {
    const [x1, y1] = spot(svg, from);
    const [x2, y2] = spot(svg, to);
    const [cx, cy] = [(x1 + x2) / 2, (y1 + y2) / 2];
    const bow = Math.sign(middle - cy) * Math.min(Math.hypot(x2 - x1, y2 - y1) / 3, 150);
    svg.append(svgNode("path", { d: `M${x1},${y1} Q${cx},${cy + bow} ${x2},${y2}`, class: "arrow",
      "marker-end": "url(#arrowhead)" }));
  }
}

// The point (1..24, 25 the bar, 0 the tray) under a click on the board, or null.
function pointAt(svg, event) {
  const where = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
  const inside = (place) => where.x >= place.x && where.x <= place.x + place.width
    && where.y >= place.y && where.y <= place.y + place.height;
  const bar = box(svg, "rect.bar");
  if (inside(bar)) return BAR;
  if (inside(box(svg, "rect.tray"))) return OFF;
  const middle = bar.y + bar.height / 2;
  for (const triangle of svg.querySelectorAll("polygon.point")) {
    const point = Number(triangle.dataset.point);
    const column = triangle.getBBox();
    const sameHalf = (point >= 13) === (where.y < middle);
    if (sameHalf && where.x >= column.x && where.x <= column.x + column.width) return point;
  }
  return null;
}

// The variant menus, from /api/variants; each variant's starting Position ID is kept for the start button.
const startingPositions = {};

function fillVariants({ variants, starting_positions: starts }) {
  Object.assign(startingPositions, starts);
  for (const select of document.querySelectorAll("select.variant")) {
    select.replaceChildren(...variants.map((name) => make("option", { value: name }, name)));
    select.value = "standard";
  }
}

// -- tabs ----------------------------------------------------------------------------------

function openTab(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
  }
  for (const section of document.querySelectorAll("section.tab")) {
    section.hidden = section.id !== `${name}-tab`;
  }
}

// -- the position tab: board, hints, cube, evaluation ------------------------------------------

// The position typed (and its variant), and the one the board shows, which Cube and Evaluate analyse: the
// same, or, once a hint's play is clicked, the position that play leads to (``play`` then names it). ``rollout``
// is the id of the rollout job whose progress the page draws; another position shown stops the drawing.
const analysis = { position: "", variant: "standard", shown: "", play: null, rollout: null };

function positionParams() {
  return { position: analysis.position, variant: analysis.variant };
}

// The line under a board: the pips and the server's ``situation`` (who is who, the cube, the rules in force).
const boardSummary = (board) => `Pips: X ${board.pips[0]}, O ${board.pips[1]}. ${board.situation}.`;

function clearResults() {
  for (const id of ["hints", "rollout", "cube-advice", "cube-rollout", "evaluation", "race"]) $(id).replaceChildren();
  analysis.rollout = null;
}

async function drawTypedPosition() {
  const board = await get("/api/board", positionParams());
  showBoard("board", board.svg);
  $("summary").textContent = boardSummary(board);
  Object.assign(analysis, { shown: analysis.position, play: null });
}

async function showPosition() {
  analysis.position = $("position").value.trim();
  analysis.variant = $("variant").value;
  clearResults();
  await drawTypedPosition();
}

const typedChanged = () => $("position").value.trim() !== analysis.position || $("variant").value !== analysis.variant;

// The position typed, for the hints: drawn first if the board shows another (a new one typed, or a hint's play).
async function typedPosition() {
  if (typedChanged() || analysis.play !== null) await showPosition();
  return positionParams();
}

// The position the board shows, for Cube and Evaluate (drawn first if a new one was typed).
async function shownPosition() {
  if (typedChanged()) await showPosition();
  return { position: analysis.shown, variant: analysis.variant };
}

// Words after a result's heading that say which position it is of, when the board shows a hint's play.
const ofShown = () => (analysis.play === null ? "" : ` after ${analysis.play}, for the side to roll next`);

async function showMove(move, dice, row) {
  const chosen = row.classList.contains("chosen");
  for (const other of row.parentElement.children) other.classList.remove("chosen");
  if (chosen) { // a second click goes back to the position before the move
    await drawTypedPosition();
    return;
  }
  const after = await get("/api/board", { ...positionParams(), move, dice: dice.join("") });
  drawArrows(showBoard("board", after.svg), after.arrows);
  row.classList.add("chosen");
  Object.assign(analysis, { shown: after.after, play: `${move || "(no move)"} with ${rollText(dice)}` });
  $("summary").textContent = `After ${analysis.play}; click the move again to go back. ${boardSummary(after)}`;
}

async function showHints() {
  const params = { ...await typedPosition(), dice: $("dice").value.trim(), ply: $("ply").value };
  const hint = await get("/api/hint", params);
  const rows = hint.moves.map((move, i) => ({
    className: "pick" + (i === 0 ? " best" : ""),
    cells: [String(i + 1), move.move || "(no move)", `${move.plies}-ply`, signed(move.equity),
      i === 0 ? "" : signed(move.diff), ...move.probs.map(percent)],
    onclick: (event) => {
      const row = event.currentTarget;
      guarded("position-message", () => showMove(move.move, hint.dice, row));
    },
  }));
  const heading = make("h3", {}, `${rollText(hint.dice)} to play: ${hint.moves.length} legal play(s), `
    + "cubeful equity after the move (EMG in a match); click one to see it");
  $("hints").replaceChildren(heading, table(["#", "Move", "Ply", "Equity", "Diff", ...PROBABILITIES], rows));
}

// -- rollouts: the hint's best plays rolled out on the server as a job, its progress polled ------------------

const POLL_MS = 500;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The progress bar and its words, drawn afresh for each poll's answer.
function rolloutProgress(job) {
  const share = job.games_total ? job.games_done / job.games_total : 1;
  return make("p", { class: "progress" }, make("progress", { max: 1, value: share }),
    `${job.games_done} of ${job.games_total} games (${Math.round(100 * share)}%)`);
}

// The plays rolled out, best first: the value of the rolled-out chances (cubeful, or EMG at a match score) and
// its distance to the best; the cubeless equity and its distance to the best, each with its 95% half-width.
function rolloutTable(report, ply) {
  const half = ([low, high]) => "± " + ((high - low) / 2).toFixed(3);
  const rows = report.rollout.map((row, i) => ({
    className: i === 0 ? "best" : "",
    cells: [String(i + 1), row.move || "(no move)", signed(row.cubeful), i === 0 ? "" : signed(row.cubeful_diff),
      signed(row.equity), half(row.ci95), signed(row.diff), half(row.diff_ci95)],
  }));
  const how = (report.truncate ? `truncated at ${report.truncate} turns` : "played to the end")
    + (report.variance_reduced ? ", variance-reduced" : "");
  const heading = make("h3", {}, `${rollText(report.dice)}: the best ${rows.length} play(s) at ${ply}-ply `
    + `rolled out, ${report.games} games each (${how}); for the mover, the value of the rolled-out chances `
    + "(cubeful, or EMG at a match score) and to the best; the cubeless equity and to the best game by game, "
    + "with 95% intervals");
  return [heading, table(["#", "Move", "Value", "To best", "Cubeless", "± 95%", "To best", "± 95%"], rows)];
}

// The rollout as it stands: its progress, and once done, its table.
function drawRollout(job, params) {
  const [heading, ...done] = job.done ? rolloutTable(job.result, params.ply)
    : [make("h3", {}, `Rolling out the best plays at ${params.ply}-ply (${params.level})…`)];
  $("rollout").replaceChildren(heading, rolloutProgress(job), ...done);
}

const ROLLOUT_BUTTONS = ["rollout-button", "cube-rollout-button"];

// A rollout job started on the server (POST ``path``), drawn by ``draw(job)`` at each poll until it is done.
async function follow(path, params, draw) {
  for (const id of ROLLOUT_BUTTONS) $(id).disabled = true; // one rollout at a time: each holds the rollout thread
  try {
    let job = await request(`${path}?${query(params)}`, { method: "POST" });
    analysis.rollout = job.id;
    while (analysis.rollout === job.id) { // another position shown stops the drawing (the server's job ends alone)
      draw(job);
      if (job.done) break;
      await pause(POLL_MS);
      job = await get(`/api/rollouts/${job.id}`, {});
    }
  } finally {
    for (const id of ROLLOUT_BUTTONS) $(id).disabled = false;
  }
}

async function rollOut() {
  const params = { ...await typedPosition(), dice: $("dice").value.trim(), ply: $("ply").value,
    level: $("level").value };
  await follow("/api/rollouts", params, (job) => drawRollout(job, params));
}

// No double and double/take rolled out with the same dice, each with its 95% half-width; double/pass is 1.
function cubeRolloutTable(report) {
  const half = ([low, high]) => "± " + ((high - low) / 2).toFixed(3);
  const rows = [["No double", signed(report.no_double), half(report.no_double_ci95)],
    ["Double, take", signed(report.double_take), half(report.double_take_ci95)],
    ["Double, pass", signed(report.double_pass), ""]].map((cells) => ({ cells }));
  const how = (report.truncate ? `truncated at ${report.truncate} turns` : "played to the end")
    + (report.variance_reduced ? ", variance-reduced" : "");
  const heading = make("h3", {}, `${report.level ? `Level ${report.level}: n` : "N"}o double and double/take `
    + `rolled out, ${report.games} cubeful games each with the same dice (${how}); equity per unit of the cube, `
    + "with 95% intervals");
  return [heading, table(["Action", "Equity", "± 95%"], rows),
    make("p", {}, `Double/take less no double, game by game: ${signed(report.double_take - report.no_double)} `
      + half(report.take_less_no_double_ci95)),
    make("p", { class: "status" }, `Proper cube action: ${report.verdict}`)];
}

function drawCubeRollout(job, params) {
  const [heading, ...done] = job.done ? cubeRolloutTable(job.result)
    : [make("h3", {}, `Rolling out the cube actions (${params.level})…`)];
  $("cube-rollout").replaceChildren(heading, rolloutProgress(job), ...done);
}

async function rollOutCube() {
  const params = { ...await shownPosition(), level: $("level").value };
  await follow("/api/cube-rollouts", params, (job) => drawCubeRollout(job, params));
}

async function showCube() {
  const cube = await get("/api/cube", { ...await shownPosition(), ply: $("ply").value });
  const probabilities = table(["", ...PROBABILITIES, "Cubeless"],
    [{ cells: [`${cube.plies}-ply`, ...cube.probs.map(percent), signed(cube.cubeless)] }]);
  const parts = [make("h3", {}, `Cube decision${ofShown()}`), probabilities];
  if (cube.double_take === null) {
    parts.push(make("p", {}, `No cube decision: ${cube.reason}; cubeful equity ${signed(cube.no_double)}.`));
  } else {
    const best = Math.max(cube.no_double, Math.min(cube.double_take, cube.double_pass));
    const match = "mwc_no_double" in cube;
    const options = [["No double", cube.no_double, cube.mwc_no_double],
      ["Double, take", cube.double_take, cube.mwc_double_take],
      ["Double, pass", cube.double_pass, cube.mwc_double_pass]];
    const rows = options.map(([name, equity, mwc]) => ({
      cells: [name, signed(equity), signed(equity - best), ...(match ? [percent(mwc)] : [])],
    }));
    parts.push(table(["Action", match ? "EMG" : "Equity", "Diff", ...(match ? ["MWC"] : [])], rows));
    parts.push(make("p", { class: "status" }, `Proper cube action: ${cube.verdict}`),
      make("p", {}, `Take point ${percent(cube.take_point)}.${cube.reason ? ` (${cube.reason})` : ""}`));
  }
  $("cube-advice").replaceChildren(...parts);
}

async function showEvaluation() {
  const evaluation = await get("/api/eval", { ...await shownPosition(), ply: $("ply").value });
  const rows = evaluation.evaluations.map((row) => ({
    cells: [`${row.plies}-ply`, ...row.probs.map(percent), signed(row.equity), signed(row.cubeful)],
  }));
  $("evaluation").replaceChildren(make("h3", {}, `Evaluation${ofShown()}`),
    table(["", ...PROBABILITIES, "Cubeless", "Cubeful"], rows));
}

// A count's two counts, or its one figure (Kleinman's K, the 8-9-12 rule's lead): gammon race's columns.
function countCells(name, count) {
  // only the mover's Thorp count has tenths
  if (count.counts !== null) return count.counts.map((value, side) => value.toFixed(name === "Thorp" && !side ? 1 : 0));
  if (name === "Kleinman") return [count.value === null ? "K infinite" : `K = ${count.value.toFixed(2)}`, ""];
  return [`lead ${percent(count.value)}`, ""];
}

async function showRace() {
  const race = await get("/api/race", { ...await shownPosition(), ply: $("ply").value });
  const pips = (value) => (value === null ? "–" : value.toFixed(1));
  const sides = table(["", "X", "O"], [{ cells: ["Pips", ...race.pips.map(String)] },
    { cells: ["EPC", ...race.epc.map(pips)] }, { cells: ["Wastage", ...race.wastage.map(pips)] }]);
  const rows = Object.entries(race.counts).map(([name, count]) => ({
    cells: [name, ...countCells(name, count), count.win === null ? "–" : percent(count.win), count.advice ?? "–"],
  }));
  const ours = race.evaluation;
  rows.push({ className: "best", cells: ["Our net", `${ours.plies}-ply`, "", percent(ours.probs[0]), ours.verdict] });
  $("race").replaceChildren(make("h3", {}, `Race counts${ofShown()}`), sides,
    table(["Count", "X", "O", "X wins", "Advice (money play)"], rows),
    make("p", { class: "note" }, "X's Keith and Thorp counts include the on-roll step (+1/7; +10% above 30). "
      + "EPC: the expected rolls to bear off × 49/6, exact from the one-sided database; – beyond it."));
}

function showStartingPosition() {
  $("position").value = startingPositions[$("variant").value];
  return showPosition();
}

// Opens ``position`` in the position tab and analyses it: the hints of its roll when ``rolled``, else the cube.
function analysePosition(position, variant, rolled) {
  $("position").value = position;
  $("variant").value = variant;
  $("dice").value = "";
  openTab("position");
  return guarded("position-message", async () => {
    await showPosition();
    await (rolled ? showHints() : showCube());
  });
}

// -- the play tab: a game against the bot ------------------------------------------------------

const play = { game: null, picked: null, busy: false };

const PROMPT_WORDS = {
  roll: "Your turn: roll, or double.",
  answer: "The bot doubles: take or pass. The board is the bot's view, as it is on roll.",
  keep: "The tutor stops you: keep your choice, or take it back and choose again.",
};

const tutorWords = (warning) => `${warning.chosen} loses ${warning.loss.toFixed(3)}: ${warning.best} is better, `
  + `equity ${signed(warning.best_equity)} against ${signed(warning.chosen_equity)}.`;

function renderGame(game) {
  play.game = game;
  play.picked = null;
  showBoard("play-board", game.svg);
  $("play-situation").textContent = `${game.situation}.`;
  const log = $("play-log");
  log.replaceChildren(...game.log.map((line) => make("li", {}, line)));
  log.scrollTop = log.scrollHeight;
  for (const button of document.querySelectorAll("#play-tab [data-prompt]")) {
    button.disabled = game.over || !button.dataset.prompt.split(" ").includes(game.prompt);
  }
  $("move").disabled = game.prompt !== "move";
  $("move").value = "";
  $("legal-moves").replaceChildren(...game.legal.map((move) => make("option", { value: move })));
  $("play-status").textContent = game.over ? "The game is over: start a new one."
    : game.prompt === "move" ? `You rolled ${rollText(game.dice)}: play your move.` : PROMPT_WORDS[game.prompt];
  $("analyse-game-position").disabled = false;
  $("tutor-warning").hidden = game.warning === null;
  $("tutor-text").textContent = game.warning === null ? "" : tutorWords(game.warning);
  say("play-message", game.warning === null ? game.said.join("\n") : "", true); // the warning says it all
}

async function playCommand(command) {
  if (!play.game || play.busy) return;
  play.busy = true;
  try {
    await guarded("play-message", async () => renderGame(await postJson(`/api/games/${play.game.id}`, { command })));
  } finally {
    play.busy = false;
  }
}

async function newGame() {
  const settings = { length: Number($("game-length").value || 0), variant: $("game-variant").value };
  if ($("game-seed").value !== "") settings.seed = Number($("game-seed").value);
  if ($("game-tutor").checked) settings.tutor = Number($("game-warn").value);
  if (play.game && !play.game.over) {
    fetch(`/api/games/${play.game.id}`, { method: "DELETE" }); // the old game's thread ends; no need to wait
  }
  renderGame(await postJson("/api/games", settings));
}

// Click a checker, then where it goes: each pair becomes one step of the move in the box.
function pickPoint(event) {
  const svg = $("play-board").querySelector("svg");
  if (!svg || !play.game || play.game.prompt !== "move") return;
  const point = pointAt(svg, event);
  if (point === null) return;
  svg.querySelector(".picked")?.remove();
  if (play.picked === null) {
    // The tray is a source only for checkers still to enter (Acey-Deucey's, drawn there): "off/22".
    if (point === OFF && !svg.querySelector("rect.to-enter.mover")) return;
    play.picked = point;
    const [x, y] = spot(svg, point);
    svg.append(svgNode("circle", { cx: x, cy: y, r: 23, class: "picked" }));
    return;
  }
  const step = `${pointName(play.picked)}/${pointName(point)}`;
  play.picked = null;
  if (step.split("/")[0] === step.split("/")[1]) return; // the same point twice: the pick is undone
  $("move").value = ($("move").value.trim() + " " + step).trim();
}

// -- the match tab: a whole match, decision by decision ------------------------------------------

const review = { result: null, index: 0 };

const isMistake = (decision) => decision.grade === "error" || decision.grade === "blunder";

// The position of a decision is seen from the player on roll: the doubler when the decision is a take.
const onRoll = (decision) => (decision.kind === "take" ? 1 - decision.player : decision.player);

function decisionWords(decision, names) {
  const who = names[decision.player];
  const what = decision.kind === "move" ? `rolls ${rollText(decision.dice)} and plays`
    : decision.kind === "cube" ? "cube:" : "answer:";
  const best = decision.best !== decision.action ? `, best ${decision.best}` : "";
  const verdict = decision.grade ? ` (${decision.grade}, ${decision.loss_mp} mp)` : "";
  return `Game ${decision.game}: ${who} ${what} ${decision.action}${best}${verdict}`;
}

// Each player's figures, under the labels gammon analyze prints (the server's ``summary_rows``).
function summaryTable(result) {
  const rows = result.summary_rows.map(([label, key]) => ({
    cells: [label, ...result.players.map((p) => String(p[key]))],
  }));
  return table(["", ...result.players.map((p) => p.name)], rows);
}

// Player 0's standing before each move (MWC in a match, cubeless equity in money play); errors and blunders
// are dots that open their decision.
function drawGraph(result) {
  const width = 900, height = 220, pad = 30;
  const values = result.graph.map((point) => point.value);
  const match = result.match_length > 0;
  const low = match ? 0 : Math.min(-1, ...values);
  const high = match ? 1 : Math.max(1, ...values);
  const x = (i) => pad + (width - 2 * pad) * i / Math.max(values.length - 1, 1);
  const y = (v) => height - pad - (height - 2 * pad) * (v - low) / (high - low);
  const svg = svgNode("svg", { viewBox: `0 0 ${width} ${height}` });
  const add = (tag, attributes, text) => svg.appendChild(svgNode(tag, attributes, text));
  add("rect", { width, height, fill: "#fafafa" });
  const middle = y(match ? 0.5 : 0);
  add("line", { x1: pad, x2: width - pad, y1: middle, y2: middle, stroke: "#bbb" });
  result.graph.forEach((point, i) => {
    if (i > 0 && point.game !== result.graph[i - 1].game) {
      add("line", { x1: x(i), x2: x(i), y1: pad, y2: height - pad, stroke: "#ddd" });
    }
  });
  for (const v of match ? [0, 0.5, 1] : [low, 0, high]) {
    add("text", { x: 2, y: y(v) + 4, "font-size": 10 }, String(Math.round(v * 100) / 100));
  }
  add("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" "), fill: "none", stroke: "#1565c0",
    "stroke-width": 2 });
  const names = result.players.map((p) => p.name);
  add("text", { x: pad, y: 18, "font-size": 13 },
    `${names[0]}'s ${match ? "match winning chance" : "cubeless equity"} before each move; `
    + "dots: errors (orange) and blunders (red); a faint line starts each game");
  let moves = 0;
  result.decisions.forEach((decision, index) => {
    const at = Math.min(moves, values.length - 1);
    if (decision.kind === "move") moves += 1;
    if (!isMistake(decision)) return;
    const dot = add("circle", { cx: x(at), cy: y(values[at]), r: 6, class: `marker ${decision.grade}`,
      fill: decision.grade === "blunder" ? "#b00020" : "#c25e00" });
    dot.append(svgNode("title", {}, decisionWords(decision, names)));
    dot.addEventListener("click", () => guarded("match-message", () => showDecision(index)));
  });
  $("graph").replaceChildren(svg);
}

// The board of a decision of ``result`` (an analysis), with the players' names.
function decisionBoardParams(result, decision) {
  const names = result.players.map((p) => p.name);
  const mover = onRoll(decision);
  return { position: decision.position, mover: names[mover], opponent: names[1 - mover] };
}

async function showDecision(index) {
  const decisions = review.result.decisions;
  review.index = Math.max(0, Math.min(index, decisions.length - 1));
  const decision = decisions[review.index];
  const items = $("decisions").children;
  for (const item of items) item.classList.remove("current");
  items[review.index].classList.add("current");
  items[review.index].scrollIntoView({ block: "nearest" });
  const names = review.result.players.map((p) => p.name);
  $("decision-text").textContent = `${review.index + 1}/${decisions.length}. ${decisionWords(decision, names)}`;
  $("decision-text").className = `status ${decision.grade}`;
  const canShow = decision.kind === "move";
  $("show-played").disabled = !canShow;
  $("show-best").disabled = !canShow;
  const board = await get("/api/board", decisionBoardParams(review.result, decision));
  showBoard("match-board", board.svg);
}

async function showDecisionMove(which) {
  const decision = review.result.decisions[review.index];
  const move = decision[which] === "(no move)" ? "" : decision[which];
  const after = await get("/api/board", { ...decisionBoardParams(review.result, decision), move,
    dice: decision.dice.join("") });
  drawArrows(showBoard("match-board", after.svg), after.arrows);
}

function nextError() {
  const decisions = review.result.decisions;
  for (let i = review.index + 1; i < decisions.length; i++) {
    if (isMistake(decisions[i])) return showDecision(i);
  }
  say("match-message", "No error or blunder after this decision.", true);
}

function chosenFile(inputId) {
  const file = $(inputId).files[0];
  if (!file) throw new Error("Choose a .mat or .sgf file first.");
  return file;
}

// The match ``file`` analysed at ``ply`` by the server: what gammon analyze --json writes.
function analyseUpload(file, ply, noCube) {
  const params = query({ name: file.name, ply, no_cube: noCube });
  return request(`/api/analyze?${params}`,
    { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: file });
}

async function analyseMatch() {
  const file = chosenFile("match-file");
  say("match-message", `Analysing ${file.name} at ${$("match-ply").value}-ply…`, true);
  const result = await analyseUpload(file, $("match-ply").value, $("match-no-cube").checked);
  review.result = result;
  const names = result.players.map((p) => p.name);
  const kind = result.match_length ? `${result.match_length}-point match` : "money session";
  say("match-message", `${file.name}: ${kind}, ${result.games} game(s), ${names[0]} ${result.final_score[0]} - `
    + `${names[1]} ${result.final_score[1]}; analysed at ${result.plies}-ply.`, true);
  $("match-summary").replaceChildren(summaryTable(result));
  drawGraph(result);
  $("decisions").replaceChildren(...result.decisions.map((decision, index) => make("li",
    { class: decision.grade, onclick: () => guarded("match-message", () => showDecision(index)) },
    decisionWords(decision, names))));
  $("match-result").hidden = result.decisions.length === 0;
  if (result.decisions.length) await showDecision(0);
}

// -- the study tab: a player's errors and blunders as cards, gammon study's deck without Anki ----------

const studying = { result: null, cards: [], index: 0 };

function cardQuestion(decision) {
  if (decision.kind === "move") return `Your play? (dice ${rollText(decision.dice)})`;
  return decision.kind === "cube" ? "Your cube action?" : "Your cube action? (doubled: take or pass)";
}

// The equities of the choices: the best few plays (and the one played), or the three cube actions, the doubler's.
function choicesTable(decision) {
  if (decision.kind === "move") {
    const best = decision.alternatives[0].equity;
    return table(["Play", "Equity", "To best"], decision.alternatives.map((play) => ({
      cells: [play.move, signed(play.equity), signed(play.equity - best)],
    })));
  }
  const actions = [["no double", "no_double"], ["double, take", "double_take"], ["double, pass", "double_pass"]];
  return table(["Cube action", "Equity (doubler)"],
    actions.map(([name, key]) => ({ cells: [name, signed(decision.equity[key])] })));
}

function cardAnswer(decision) {
  const verdict = `${decision.grade}: ${decision.loss_mp.toFixed(0)} mp`
    + (decision.cube_error ? `, ${decision.cube_error}` : "");
  return [make("p", {}, "Best: ", make("b", {}, decision.best), make("br"), "Played: ", make("b", {}, decision.action)),
    make("p", { class: decision.grade }, verdict), choicesTable(decision)];
}

async function showCard(index) {
  studying.index = index % studying.cards.length;
  const decision = studying.cards[studying.index];
  const board = await get("/api/board", decisionBoardParams(studying.result, decision));
  showBoard("study-board", board.svg);
  $("study-count").textContent = `Card ${studying.index + 1} of ${studying.cards.length}: `
    + `game ${decision.game}, move ${decision.move}.`;
  $("study-question").textContent = cardQuestion(decision);
  $("study-answer").replaceChildren(...cardAnswer(decision));
  $("study-answer").hidden = true;
  $("show-answer").disabled = false;
}

function showAnswer() {
  $("study-answer").hidden = false;
  $("show-answer").disabled = true;
}

// The cards of the player chosen in the menu, from the first.
async function dealCards() {
  const seat = Number($("study-player").value);
  studying.cards = studying.result.decisions.filter((decision) => decision.player === seat && isMistake(decision));
  $("study-card").hidden = studying.cards.length === 0;
  const name = studying.result.players[seat].name;
  say("study-message", studying.cards.length ? ""
    : `${name} made no error or blunder at ${studying.result.plies}-ply: no cards.`, true);
  if (studying.cards.length) await showCard(0);
}

async function makeCards() {
  const file = chosenFile("study-file");
  say("study-message", `Analysing ${file.name} at ${$("study-ply").value}-ply…`, true);
  const result = await analyseUpload(file, $("study-ply").value, false);
  studying.result = result;
  const menu = $("study-player");
  menu.replaceChildren(...result.players.map((player, seat) => make("option", { value: seat }, player.name)));
  menu.value = String(Math.max(0, result.players.findIndex((player) => player.errors + player.blunders > 0)));
  menu.disabled = false;
  await dealCards();
}

// -- wiring --------------------------------------------------------------------------------

function onSubmit(formId, messageId, work) {
  $(formId).addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(messageId, work);
  });
}

function onClick(buttonId, messageId, work) {
  $(buttonId).addEventListener("click", () => guarded(messageId, work));
}

function wire() {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.addEventListener("click", () => openTab(tab.dataset.tab));
  }
  const rolls = [];
  for (let high = 1; high <= 6; high++) {
    for (let low = 1; low <= high; low++) rolls.push(make("option", { value: `${high}${low}` }));
  }
  $("rolls").replaceChildren(...rolls);

  onSubmit("position-form", "position-message", showPosition);
  onClick("start-button", "position-message", showStartingPosition);
  onSubmit("analysis-form", "position-message", showHints);
  onClick("rollout-button", "position-message", rollOut);
  onClick("cube-button", "position-message", showCube);
  onClick("cube-rollout-button", "position-message", rollOutCube);
  onClick("eval-button", "position-message", showEvaluation);
  onClick("race-button", "position-message", showRace);

  onSubmit("new-game-form", "play-message", newGame);
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    playCommand($("move").value);
  });
  for (const button of document.querySelectorAll("#play-tab [data-command]")) {
    button.addEventListener("click", () => playCommand(button.dataset.command));
  }
  $("resign-button").addEventListener("click", () => playCommand(`resign ${$("resign-kind").value}`));
  $("clear-move").addEventListener("click", () => { $("move").value = ""; });
  $("play-board").addEventListener("click", pickPoint);
  $("analyse-game-position").addEventListener("click",
    () => analysePosition(play.game.position, play.game.variant, play.game.dice !== null)); // a roll to play

  onSubmit("match-form", "match-message", analyseMatch);
  onClick("previous-decision", "match-message", () => showDecision(review.index - 1));
  onClick("next-decision", "match-message", () => showDecision(review.index + 1));
  onClick("next-error", "match-message", nextError);
  onClick("show-played", "match-message", () => showDecisionMove("action"));
  onClick("show-best", "match-message", () => showDecisionMove("best"));
  onSubmit("study-form", "study-message", makeCards);
  $("study-player").addEventListener("change", () => guarded("study-message", dealCards));
  $("show-answer").addEventListener("click", showAnswer);
  onClick("next-card", "study-message", () => showCard(studying.index + 1));
  onClick("analyse-decision", "match-message", () => {
    const decision = review.result.decisions[review.index];
    return analysePosition(decision.position, "standard", decision.kind === "move");
  });
}

async function start() {
  wire();
  await guarded("position-message", async () => {
    fillVariants(await request("/api/variants"));
    await showPosition();
  });
}

document.addEventListener("DOMContentLoaded", start);
