// The race room: players and ready flags, the countdown, your board (played over its
// own game socket), every other racer's board live (over the race socket), the
// results; spectators see every board, with the race's delay, and the watcher count.
// In a fair race (not open boards) the other boards name only the cards this viewer
// may know, "??" for the rest; a "view" frame fills a board in when the viewer learns
// a card (their own move, arriving on this socket as a racer's event).

import { currentUser, get, post } from "../api.js";
import { Board, normalizeView } from "../board.js";
import { GameSession } from "../game-session.js";
import { formatNumber, gettext, interpolate, interpolateParts, language, ngettext, pgettext } from "../i18n.js";
import { Channel, showStatus } from "../socket.js";
import { $, announce, confirmButton, formatScore, formatTime, h, homeText, modeName, playerLink, replace, toast } from "../util.js";

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

// A racer's state, on the tag over their board.
const RACER_STATUS = {
  live: pgettext("racer", "racing"), won: pgettext("racer", "won"), resigned: pgettext("racer", "gave up"),
  timed_out: pgettext("racer", "out of time"), abandoned: pgettext("racer", "abandoned"),
};

function capitalize(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

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
      if (status === "gone") els.phase.textContent = gettext("There is no such race.");
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
    case "watchers": els.watchers.textContent = formatNumber(message.count); break;
    case "error": els.error.textContent = message.detail || message.error; break;
    default: break;
  }
}

// -- the race ----------------------------------------------------------------------

function showRace() {
  const phase = phaseOf(race);
  els.title.textContent = interpolate(gettext("%(name)s's race · %(mode)s"), { name: race.host, mode: modeName(race.draw, race.scoring) });
  document.title = interpolate(gettext("%(name)s's race · Klondike"), { name: race.host });
  const entry = myEntry();
  document.body.classList.toggle("spectating", !entry);
  // Players and ready flags (before the start); results at the end.
  els.lobby.hidden = !(phase === "open" || phase === "cancelled");
  replace(els.players, race.entries.map((e) => h("li", { "data-player": e.player },
    h("span", {}, playerLink(e.player), e.player === race.host ? h("span", { class: "muted" }, ` ${gettext("(host)")}`) : null),
    h("span", { class: e.ready ? "ready-yes" : "ready-no" }, e.ready ? gettext("Ready") : gettext("Not ready")))));
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
  els.kind.textContent = race.open_boards ? gettext("Open boards: every card is shown live (unrated)")
    : race.rated ? gettext("Rated race") : gettext("Unrated race");
  els.kind.dataset.openBoards = String(!!race.open_boards);
  const running = phase === "countdown" || phase === "running";
  els.legend.hidden = !running || !!race.open_boards;
  els.legendText.textContent = entry?.status === "live"
    ? gettext("A card marked ? is face up on that board, but you have not seen it yet in your own game: it is named as soon as you turn it up.")
    : gettext("A card marked ? is face up on that board, but not every racer still playing has seen it yet: it is named once they all have.");
}

function showActions(phase, entry) {
  els.error.textContent = "";
  const actions = [];
  if (phase === "open") {
    if (!me) {
      actions.push(h("a", { class: "button primary", href: `/login/?next=${encodeURIComponent(location.pathname)}` }, gettext("Log in to race")));
    } else if (!entry) {
      if (race.entries.length < race.max_players) actions.push(button(gettext("Join race"), "primary", () => post(`/api/races/${raceId}/join`)));
      else actions.push(h("p", { class: "muted" }, gettext("This race is full.")));
    } else {
      const ready = button(entry.ready ? gettext("Not ready") : gettext("I'm ready"), entry.ready ? "" : "primary",
        () => post(`/api/races/${raceId}/ready`, { ready: !entry.ready }));
      ready.setAttribute("aria-pressed", String(entry.ready));
      // Translators: a button: leave a race before it starts.
      actions.push(ready, button(gettext("Leave"), "ghost", () => post(`/api/races/${raceId}/leave`)));
    }
    actions.push(h("p", { class: "muted" }, interpolate(ngettext(
      "%(count)s/%(max)s player · %(time)s on the clock · starts when everyone (two or more) is ready",
      "%(count)s/%(max)s players · %(time)s on the clock · starts when everyone (two or more) is ready", race.max_players),
    { count: formatNumber(race.entries.length), max: formatNumber(race.max_players), time: formatTime(race.time_limit) })));
  } else if (phase === "cancelled") {
    actions.push(h("p", {}, interpolateParts(gettext("This race was cancelled. %(link)s"),
      { link: h("a", { href: "/" }, gettext("Back to the lobby")) })));
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
    open: interpolate(gettext("Waiting for players (%(count)s/%(max)s)"),
      { count: formatNumber(race.entries.length), max: formatNumber(race.max_players) }),
    countdown: gettext("Get ready…"),
    running: myEntry() ? gettext("Race on!") : gettext("Racing"),
    finished: pgettext("race", "Finished"),
    cancelled: pgettext("race", "Cancelled"),
  };
  els.phase.textContent = texts[phase] || phase;
  els.phase.dataset.phase = phase;
  els.clock.classList.toggle("countdown", phase === "countdown");
  if (phase === "countdown") {
    els.clock.textContent = formatNumber(Math.max(1, Math.ceil((Date.parse(race.starts_at) - now()) / 1000)));
  } else if (phase === "running") {
    els.clock.textContent = formatTime((Date.parse(race.ends_at) - now()) / 1000);
  } else {
    els.clock.textContent = "";
  }
  if (phase !== lastPhase) {
    if (phase === "countdown") announce(gettext("Everyone is ready: the race starts in five seconds."));
    if (phase === "running") { announce(gettext("Go!")); if (mine) mine.board.root.querySelector("[tabindex='0']")?.focus({ preventScroll: true }); }
    if (phase === "finished") announce(gettext("The race is over."));
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
      els.moves.textContent = formatNumber(s.moves ?? 0);
      els.home.textContent = formatNumber(view?.foundation_count ?? 0);
      els.undo.disabled = !s.live || !s.view?.can_undo;
      els.resign.disabled = !s.live;
    },
    onRefused: (error, action) => {
      const reason = error.detail || error.error;
      els.message.textContent = action?.move?.card
        ? interpolate(gettext("%(action)s refused: %(reason)s"), { action: capitalize(session.describe(action.move)), reason }) : reason;
      els.message.dataset.kind = "error";
      announce(interpolate(gettext("Refused: %(reason)s"), { reason }));
    },
    onStatus: (status) => showStatus(els.connection, status),
  });
  mine = { gameId, session, board };
  els.undo.addEventListener("click", () => session.undo());
  confirmButton(els.resign, gettext("Really give up?"), () => session.resign());
  session.start();
}

function ensureBoard(gameId, player) {
  if (boards.has(gameId)) return boards.get(gameId);
  const root = h("div", { class: "board-holder" });
  const line = h("p", { class: "line", "aria-live": "off" });
  const el = h("article", { class: "opponent", "data-player": player, "aria-label": interpolate(gettext("%(name)s's board"), { name: player }) },
    h("h3", {}, playerLink(player), h("span", { class: "tag live", "data-role": "status" }, RACER_STATUS.live)), root, line);
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
  const values = { home: homeText(home), score: formatScore(b.score ?? entry?.score, race?.scoring), count: formatNumber(b.moves ?? 0) };
  b.line.textContent = interpolate(ngettext("%(home)s · score %(score)s · %(count)s move", "%(home)s · score %(score)s · %(count)s moves", b.moves ?? 0), values)
    + (b.delayed ? ` · ${interpolate(ngettext("%(count)s move behind", "%(count)s moves behind", b.delayed), { count: formatNumber(b.delayed) })}` : "");
  b.el.dataset.seq = String(b.seq ?? "");
  b.el.dataset.moves = String(b.moves ?? 0);
  const tag = b.el.querySelector("[data-role=status]");
  tag.textContent = RACER_STATUS[status] || status;
  tag.classList.toggle("live", status === "live");
}

/** After the race: a racer asks for a rematch with one click; when every racer has,
 * everyone in the room is taken to the new race (spectators get a link). */
function rematchLine() {
  const entry = myEntry();
  if (race.rematch) {
    if (entry) { location.assign(`/races/${race.rematch}/`); return null; }
    return h("p", { "data-testid": "rematch" }, interpolateParts(gettext("The racers are racing again: %(link)s"),
      { link: h("a", { href: `/races/${race.rematch}/` }, gettext("watch the rematch")) }));
  }
  const asked = race.entries.filter((e) => e.rematch).map((e) => e.player);
  const waiting = race.entries.filter((e) => !e.rematch).map((e) => e.player);
  const names = new Intl.ListFormat(language, { style: "long", type: "conjunction" });
  const note = asked.length ? interpolate(ngettext("Rematch: %(names)s wants to race again; waiting for %(waiting)s.",
    "Rematch: %(names)s want to race again; waiting for %(waiting)s.", asked.length),
  { names: names.format(asked), waiting: names.format(waiting) }) : "";
  if (!entry) return note ? h("p", { class: "muted", "data-testid": "rematch" }, note) : null;
  const ask = h("button", { class: `button ${entry.rematch ? "" : "primary"}`, type: "button" },
    entry.rematch ? gettext("Rematch asked") : gettext("Rematch"));
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
    h("p", { class: "muted", role: "status" }, note || gettext("Same players, a new deal: everyone confirms with one click.")));
}

function showResults() {
  els.results.hidden = false;
  const rows = [...race.entries].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99));
  const me_ = me?.username;
  replace(els.resultsBody,
    h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": gettext("Race results") }, h("table", { "data-testid": "race-results" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, gettext("Rank")), h("th", { scope: "col" }, gettext("Player")),
        h("th", { scope: "col" }, gettext("Result")), h("th", { scope: "col", class: "num" }, gettext("Home")),
        h("th", { scope: "col", class: "num" }, gettext("Score")), h("th", { scope: "col", class: "num" }, gettext("Moves")))),
      h("tbody", {}, rows.map((e) => h("tr", { class: e.player === me_ ? "me" : "" },
        h("td", {}, e.rank === null || e.rank === undefined ? "–" : formatNumber(e.rank)), h("td", {}, playerLink(e.player)),
        h("td", {}, e.won ? interpolate(gettext("Won in %(time)s"), { time: formatTime(e.seconds) })
          : { resigned: pgettext("result", "Gave up"), timed_out: pgettext("result", "Out of time") }[e.status] || e.status || "–"),
        h("td", { class: "num" }, `${formatNumber(e.foundation_count ?? 0)}/52`),
        h("td", { class: "num" }, formatScore(e.score, race.scoring)),
        h("td", { class: "num" }, formatNumber(e.moves ?? 0))))))),
    race.code ? h("p", {}, interpolateParts(gettext("The deal was %(code)s. %(results)s · %(replay)s"), {
      code: h("code", {}, race.code),
      results: h("a", { href: `/leaderboards/?tab=deal&code=${encodeURIComponent(race.code)}` }, gettext("Results on this deal")),
      replay: h("a", { href: `/races/${raceId}/replay/`, "data-testid": "race-replay-link" }, gettext("Replay the race")),
    })) : null,
    rematchLine(),
    h("p", {}, h("a", { class: "button", href: "/" }, gettext("Back to the lobby"))));
  const entry = myEntry();
  if (entry && lastPhase !== "finished") {
    toast(entry.rank === 1 ? gettext("You won the race!") : interpolate(gettext("You finished #%(rank)s"), { rank: formatNumber(entry.rank) }), "success");
  }
}

main();
