// The race room: players and ready flags, the countdown, your board (played over its
// own game socket), every other racer's board live (over the race socket), the
// results; spectators see every board, with the race's delay, and the watcher count.
// In a fair race (not open boards) the other boards name only the cards this viewer
// may know, "??" for the rest; a "view" frame fills a board in when the viewer learns
// a card (their own move, arriving on this socket as a racer's event).

import { currentUser, get, post } from "../api.js";
import { Board, normalizeView } from "../board.js";
import { GameSession } from "../game-session.js";
import { Channel, showStatus } from "../socket.js";
import { $, announce, confirmButton, formatScore, formatTime, h, modeName, playerLink, replace, toast } from "../util.js";

const raceId = document.body.dataset.raceId;
const els = {
  title: $("#race-title"), connection: $("#connection"), phase: $("#phase"), clock: $("#race-clock"),
  watchers: $("#watchers"), players: $("#players"), actions: $("#race-actions"), error: $("#race-error"),
  lobby: $("#lobby"), results: $("#results"), resultsBody: $("#results-body"), myArea: $("#my-area"),
  opponents: $("#opponents"), score: $("#score"), moves: $("#moves"), home: $("#home-count"),
  undo: $("#undo"), resign: $("#resign"), message: $("#message"), board: $("#board"), complete: $("#complete"),
  kind: $("#race-kind"), legend: $("#fair-legend"), legendText: $("#fair-legend-text"),
};

let me = null;
let race = null;
let offset = 0;               // server clock minus ours, in ms
let mine = null;              // {gameId, session, board}
const boards = new Map();     // game id → {player, board, el, line, seq, view, score, moves, status, delayed}
let lastPhase = null;

function now() { return Date.now() + offset; }

function phaseOf(r) {
  if (!r) return "open";
  if ((r.phase === "countdown" || r.phase === "running") && r.starts_at) {
    return now() < Date.parse(r.starts_at) ? "countdown" : "running";
  }
  return r.phase;
}

function myEntry() {
  return me && race ? race.entries.find((e) => e.player === me.username) : null;
}

async function main() {
  try { me = await currentUser(); } catch { me = null; }
  channel = new Channel(`/ws/races/${raceId}/`, {
    onMessage: receive,
    onStatus: (status) => {
      showStatus(els.connection, status);
      if (status === "gone") els.phase.textContent = "There is no such race.";
    },
  });
  channel.connect();
  setInterval(tick, 250);
  setInterval(poll, 1000);
  window.klondike = { channel, boards, get mine() { return mine; } };
}

let lastRaceAt = 0;

function raceChanged(payload) {
  race = payload;
  lastRaceAt = Date.now();
  offset = Date.parse(race.server_time) - Date.now();
  showRace();
}

/** The socket pushes every change; a quiet socket is double-checked over REST now and
 * then (this also ends a race whose clock ran out while nobody's process noticed). */
let channel = null;
let lastPoll = 0;
let stale = null;   // boards that looked behind at the last poll: game id → seq

function digest(payload) {
  const phase = ["countdown", "running"].includes(payload.phase) ? "started" : payload.phase;
  return JSON.stringify([phase, payload.entries.map((e) => [e.player, e.ready, e.game, e.status])]);
}

/** Boards this socket shows behind the race's own summary, twice in a row. */
function boardsBehind(fresh) {
  if (fresh.spectator_delay && !myEntry()) return false; // they lag on purpose
  const behind = new Map();
  for (const e of fresh.entries) {
    const b = e.game && boards.get(e.game);
    if (b && e.seq > (b.seq ?? -1)) behind.set(e.game, b.seq);
  }
  const persistent = stale && [...behind].some(([game, seq]) => stale.get(game) === seq);
  stale = behind.size ? behind : null;
  return persistent;
}

async function poll() {
  if (!race || ["finished", "cancelled"].includes(race.phase)) return;
  const every = phaseOf(race) === "running" ? 8000 : 3000;
  if (Date.now() - Math.max(lastRaceAt, lastPoll) < every) return;
  lastPoll = Date.now();
  let fresh;
  try { fresh = await get(`/api/races/${raceId}/`); } catch { return; }
  if ((digest(fresh) !== digest(race) || boardsBehind(fresh)) && channel?.open) {
    // The socket missed something: start a new connection, which sends the race and
    // every board again.
    stale = null;
    channel.drop();
  }
  raceChanged(fresh);
}

function receive(message) {
  switch (message.type) {
    case "race":
      raceChanged(message.race);
      break;
    case "snapshot": snapshot(message); break;
    case "event": event(message); break;
    case "view": viewChanged(message); break;
    case "watchers": els.watchers.textContent = String(message.count); break;
    case "error": els.error.textContent = message.detail || message.error; break;
    default: break;
  }
}

// -- the race ----------------------------------------------------------------------

function showRace() {
  const phase = phaseOf(race);
  els.title.textContent = `${race.host}'s race · ${modeName(race.draw, race.scoring)}`;
  document.title = `${race.host}'s race · Klondike`;
  const entry = myEntry();
  document.body.classList.toggle("spectating", !entry);
  // Players and ready flags (before the start); results at the end.
  els.lobby.hidden = !(phase === "open" || phase === "cancelled");
  replace(els.players, race.entries.map((e) => h("li", { "data-player": e.player },
    h("span", {}, playerLink(e.player), e.player === race.host ? h("span", { class: "muted" }, " (host)") : null),
    h("span", { class: e.ready ? "ready-yes" : "ready-no" }, e.ready ? "Ready" : "Not ready"))));
  showActions(phase, entry);
  showFairness(phase, entry);
  // Boards: mine over its game socket; the others from this socket.
  if (entry?.game && !mine) openMyGame(entry.game);
  for (const e of race.entries) {
    if (!e.game || (mine && e.game === mine.gameId)) continue;
    ensureBoard(e.game, e.player);
    const b = boards.get(e.game);
    b.status = e.status;
    updateLine(b, e);
  }
  if (phase === "finished") showResults();
  tick();
}

/** Rated or not, open boards or fair; while a fair race runs, what "?" means. */
function showFairness(phase, entry) {
  els.kind.textContent = race.open_boards ? "Open boards: every card is shown live (unrated)"
    : race.rated ? "Rated race" : "Unrated race";
  els.kind.dataset.openBoards = String(!!race.open_boards);
  const running = phase === "countdown" || phase === "running";
  els.legend.hidden = !running || !!race.open_boards;
  els.legendText.textContent = entry?.status === "live"
    ? "A card marked ? is face up on that board, but you have not seen it yet in your own game: it is named as soon as you turn it up."
    : "A card marked ? is face up on that board, but not every racer still playing has seen it yet: it is named once they all have.";
}

function showActions(phase, entry) {
  els.error.textContent = "";
  const actions = [];
  if (phase === "open") {
    if (!me) {
      actions.push(h("a", { class: "button primary", href: `/login/?next=${encodeURIComponent(location.pathname)}` }, "Log in to race"));
    } else if (!entry) {
      if (race.entries.length < race.max_players) actions.push(button("Join race", "primary", () => post(`/api/races/${raceId}/join`)));
      else actions.push(h("p", { class: "muted" }, "This race is full."));
    } else {
      const ready = button(entry.ready ? "Not ready" : "I'm ready", entry.ready ? "" : "primary",
        () => post(`/api/races/${raceId}/ready`, { ready: !entry.ready }));
      ready.setAttribute("aria-pressed", String(entry.ready));
      actions.push(ready, button("Leave", "ghost", () => post(`/api/races/${raceId}/leave`)));
    }
    actions.push(h("p", { class: "muted" }, `${race.entries.length}/${race.max_players} players · ${formatTime(race.time_limit)} on the clock · starts when everyone (two or more) is ready`));
  } else if (phase === "cancelled") {
    actions.push(h("p", {}, "This race was cancelled. ", h("a", { href: "/" }, "Back to the lobby")));
  }
  replace(els.actions, actions);
}

function button(label, kind, action) {
  const b = h("button", { class: `button ${kind}`, type: "button" }, label);
  b.addEventListener("click", async () => {
    b.disabled = true;
    els.error.textContent = "";
    try { await action(); } catch (err) { els.error.textContent = err.detail || String(err); b.disabled = false; }
  });
  return b;
}

function tick() {
  if (!race) return;
  const phase = phaseOf(race);
  const texts = {
    open: `Waiting for players (${race.entries.length}/${race.max_players})`,
    countdown: "Get ready…",
    running: myEntry() ? "Race on!" : "Racing",
    finished: "Finished",
    cancelled: "Cancelled",
  };
  els.phase.textContent = texts[phase] || phase;
  els.phase.dataset.phase = phase;
  els.clock.classList.toggle("countdown", phase === "countdown");
  if (phase === "countdown") {
    els.clock.textContent = String(Math.max(1, Math.ceil((Date.parse(race.starts_at) - now()) / 1000)));
  } else if (phase === "running") {
    els.clock.textContent = formatTime((Date.parse(race.ends_at) - now()) / 1000);
  } else {
    els.clock.textContent = "";
  }
  if (phase !== lastPhase) {
    if (phase === "countdown") announce("Everyone is ready: the race starts in five seconds.");
    if (phase === "running") { announce("Go!"); if (mine) mine.board.root.querySelector("[tabindex='0']")?.focus({ preventScroll: true }); }
    if (phase === "finished") announce("The race is over.");
    lastPhase = phase;
  }
}

// -- boards ----------------------------------------------------------------------

function openMyGame(gameId) {
  els.myArea.hidden = false;
  const board = new Board(els.board, {
    interactive: true,
    onMove: (move) => { els.message.textContent = ""; mine.session.move(move); },
    onStock: () => { els.message.textContent = ""; mine.session.draw(); },
  });
  const session = new GameSession(gameId, {
    board,
    onChange: (s) => {
      els.board.dataset.seq = String(s.seq ?? "");
      els.board.dataset.status = s.status;
      els.board.dataset.pending = String(s.pending.length);
      const view = s.shown();
      els.score.textContent = formatScore(s.score ?? view?.score, s.scoring);
      els.moves.textContent = String(s.moves ?? 0);
      els.home.textContent = String(view?.foundation_count ?? 0);
      els.undo.disabled = !s.live || !s.view?.can_undo;
      els.resign.disabled = !s.live;
    },
    onRefused: (error, action) => {
      const reason = error.detail || error.error;
      els.message.textContent = action?.move?.card ? `${session.describe(action.move)} refused: ${reason}` : reason;
      els.message.dataset.kind = "error";
      announce(`Refused: ${reason}`);
    },
    onStatus: (status) => showStatus(els.connection, status),
  });
  mine = { gameId, session, board };
  els.undo.addEventListener("click", () => session.undo());
  confirmButton(els.resign, "Really give up?", () => session.resign());
  session.start();
}

function ensureBoard(gameId, player) {
  if (boards.has(gameId)) return boards.get(gameId);
  const root = h("div", { class: "board-holder" });
  const line = h("p", { class: "line", "aria-live": "off" });
  const el = h("article", { class: "opponent", "data-player": player, "aria-label": `${player}'s board` },
    h("h3", {}, playerLink(player), h("span", { class: "tag live", "data-role": "status" }, "racing")), root, line);
  els.opponents.append(el);
  const b = { player, el, line, board: new Board(root, { interactive: false, compact: true, name: player }),
    seq: null, view: null, score: 0, moves: 0, status: "live", foundation: 0, delayed: 0, scoring: race.scoring };
  boards.set(gameId, b);
  return b;
}

function playerOf(gameId) {
  return race?.entries.find((e) => e.game === gameId)?.player ?? "?";
}

function snapshot(message) {
  const game = message.game || {};
  if (mine && game.id === mine.gameId) return; // my own board has its own socket
  const b = ensureBoard(game.id, message.player || playerOf(game.id));
  b.seq = message.seq;
  b.view = normalizeView(game.view, race?.draw);
  b.delayed = message.delayed_by || 0;
  if (b.view) { b.score = b.view.score; b.moves = b.view.moves; b.board.setView(b.view); }
  updateLine(b);
}

function event(message) {
  if (mine && message.game === mine.gameId) return;
  const b = boards.get(message.game) || ensureBoard(message.game, playerOf(message.game));
  if (b.seq !== null && message.seq <= b.seq) return;
  b.seq = message.seq;
  b.score = message.score;
  b.moves = message.moves;
  if (message.status) b.status = message.status;
  b.delayed = message.delayed_by ?? b.delayed;
  if (message.view) { b.view = normalizeView(message.view, race?.draw); b.board.setView(b.view); }
  updateLine(b);
}

/** The viewer has learned a card: the board of that game (no move happened), with the
 * newly known names filled in. */
function viewChanged(message) {
  if (mine && message.game === mine.gameId) return;
  const b = boards.get(message.game);
  if (!b || (b.seq !== null && message.seq < b.seq)) return;
  b.seq = message.seq;
  b.delayed = message.delayed_by ?? b.delayed;
  b.view = normalizeView(message.view, race?.draw);
  if (b.view) b.board.setView(b.view);
  updateLine(b);
}

function updateLine(b, entry) {
  if (entry && entry.seq > (b.seq ?? -1)) {
    // The race's summary is ahead of this board's stream: show its counters.
    b.moves = entry.moves;
    b.score = entry.score;
  }
  const status = entry?.status || b.status || "live";
  const home = b.view?.foundation_count ?? entry?.foundation_count ?? 0;
  b.line.textContent = `${home}/52 home · score ${formatScore(b.score ?? entry?.score, race?.scoring)} · ${b.moves ?? 0} moves`
    + (b.delayed ? ` · ${b.delayed} moves behind` : "");
  b.el.dataset.seq = String(b.seq ?? "");
  b.el.dataset.moves = String(b.moves ?? 0);
  const tag = b.el.querySelector("[data-role=status]");
  tag.textContent = { live: "racing", won: "won", resigned: "gave up", timed_out: "out of time" }[status] || status;
  tag.classList.toggle("live", status === "live");
}

/** After the race: a racer asks for a rematch with one click; when every racer has,
 * everyone in the room is taken to the new race (spectators get a link). */
function rematchLine() {
  const entry = myEntry();
  if (race.rematch) {
    if (entry) { location.assign(`/races/${race.rematch}/`); return null; }
    return h("p", { "data-testid": "rematch" }, "The racers are racing again: ",
      h("a", { href: `/races/${race.rematch}/` }, "watch the rematch"));
  }
  const asked = race.entries.filter((e) => e.rematch).map((e) => e.player);
  const waiting = race.entries.filter((e) => !e.rematch).map((e) => e.player);
  const note = asked.length ? `Rematch: ${asked.join(", ")} ${asked.length === 1 ? "wants" : "want"} to race again; waiting for ${waiting.join(", ")}.` : "";
  if (!entry) return note ? h("p", { class: "muted", "data-testid": "rematch" }, note) : null;
  const ask = h("button", { class: `button ${entry.rematch ? "" : "primary"}`, type: "button" },
    entry.rematch ? "Rematch asked" : "Rematch");
  ask.addEventListener("click", async () => {
    ask.disabled = true;
    try { raceChanged(await post(`/api/races/${raceId}/rematch`)); } catch (err) {
      ask.disabled = false;
      toast(err.detail || String(err), "error");
    }
  });
  ask.setAttribute("aria-pressed", String(entry.rematch));
  ask.setAttribute("data-testid", "rematch-button");
  ask.disabled = entry.rematch;
  return h("div", { class: "inline", "data-testid": "rematch" }, ask,
    h("p", { class: "muted", role: "status" }, note || "Same players, a new deal: everyone confirms with one click."));
}

function showResults() {
  els.results.hidden = false;
  const rows = [...race.entries].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99));
  const me_ = me?.username;
  replace(els.resultsBody,
    h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Race results" }, h("table", { "data-testid": "race-results" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Rank"), h("th", { scope: "col" }, "Player"),
        h("th", { scope: "col" }, "Result"), h("th", { scope: "col", class: "num" }, "Home"),
        h("th", { scope: "col", class: "num" }, "Score"), h("th", { scope: "col", class: "num" }, "Moves"))),
      h("tbody", {}, rows.map((e) => h("tr", { class: e.player === me_ ? "me" : "" },
        h("td", {}, e.rank ?? "–"), h("td", {}, playerLink(e.player)),
        h("td", {}, e.won ? `Won in ${formatTime(e.seconds)}` : { resigned: "Gave up", timed_out: "Out of time" }[e.status] || e.status || "–"),
        h("td", { class: "num" }, `${e.foundation_count}/52`),
        h("td", { class: "num" }, formatScore(e.score, race.scoring)),
        h("td", { class: "num" }, e.moves)))))),
    race.code ? h("p", {}, "The deal was ", h("code", {}, race.code), ". ",
      h("a", { href: `/leaderboards/?tab=deal&code=${encodeURIComponent(race.code)}` }, "Results on this deal"), " · ",
      h("a", { href: `/races/${raceId}/replay/`, "data-testid": "race-replay-link" }, "Replay the race")) : null,
    rematchLine(),
    h("p", {}, h("a", { class: "button", href: "/" }, "Back to the lobby")));
  const entry = myEntry();
  if (entry && lastPhase !== "finished") toast(entry.rank === 1 ? "You won the race!" : `You finished #${entry.rank}`, "success");
}

main();
