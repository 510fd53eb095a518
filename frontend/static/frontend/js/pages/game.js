// The game page: play your game, or watch someone's (the same socket; spectators
// get a read-only board and the watcher count).

import { ApiError, get, getOptional, post } from "../api.js";
import { Board, showsUnseen } from "../board.js";
import { GameSession } from "../game-session.js";
import { GhostRace } from "../ghost.js";
import { formatNumber, gettext, interpolate, interpolateParts, ngettext } from "../i18n.js";
import { showStatus } from "../socket.js";
import { $, announce, confirmButton, copyText, formatScore, formatTime, h, modeName, replace } from "../util.js";

const body = document.body;
const gameId = body.dataset.gameId;
const watchOnly = body.dataset.watch === "true";

const els = {
  title: $("#game-title"), connection: $("#connection"), score: $("#score"), moves: $("#moves"),
  clock: $("#clock time"), watchers: $("#watchers"), undo: $("#undo"), hint: $("#hint"),
  complete: $("#complete"), resign: $("#resign"), newGame: $("#new-game"), message: $("#message"),
  board: $("#board"), result: $("#result"), toolbar: $("#toolbar"), legend: $("#fair-legend"),
};

let payload = null;
let session = null;
let board = null;
let refreshTimer = null;
let shownResult = false;
let ghostRace = null;

// A message is about the position it was said in: once the game moves on (a move, an
// undo, a completion's events) it is no longer true and goes, unless one is held
// (while Complete runs).
let saidAtSeq = null;
let holdMessage = false;

function clearError() {
  if (els.message.dataset.kind === "error") { els.message.textContent = ""; delete els.message.dataset.kind; }
}

function clearMessage() {
  els.message.textContent = "";
  delete els.message.dataset.kind;
  saidAtSeq = null;
}

function say(text, kind = "info") {
  saidAtSeq = session?.seq ?? null;
  els.message.textContent = text;
  els.message.dataset.kind = kind;
  els.message.classList.remove("flash");
  void els.message.offsetWidth;
  els.message.classList.add("flash");
}

async function main() {
  try {
    payload = await get(`/api/games/${gameId}/`);
  } catch (err) {
    replace(els.board, h("p", { class: "empty" }, err instanceof ApiError && err.status === 404
      ? gettext("There is no such game.")
      : interpolate(gettext("The game could not be loaded: %(reason)s"), { reason: err.detail || err.message })));
    els.toolbar.hidden = true;
    return;
  }
  const playing = payload.yours && !watchOnly;
  body.classList.toggle("spectating", !playing);
  const owner = payload.owner;
  const mode = modeName(payload.draw, payload.scoring);
  if (playing) {
    els.title.textContent = interpolate(gettext("Your game · %(mode)s"), { mode });
    document.title = gettext("Your game · Klondike");
  } else if (owner) {
    els.title.textContent = interpolate(gettext("Watching %(name)s · %(mode)s"), { name: owner, mode });
    document.title = interpolate(gettext("Watching %(name)s · Klondike"), { name: owner });
  } else {
    els.title.textContent = interpolate(gettext("Watching a guest · %(mode)s"), { mode });
    document.title = gettext("Watching a guest · Klondike");
  }
  for (const el of [els.undo, els.hint, els.complete, els.resign]) el.hidden = !playing;
  if (!playing || payload.kind !== "casual") els.hint.hidden = true;
  els.complete.hidden = true;
  board = new Board(els.board, {
    interactive: playing,
    name: playing ? "" : owner ? interpolate(gettext("%(name)s's board"), { name: owner }) : gettext("a guest's board"),
    onMove: (move) => { clearError(); session.move(move); },
    onStock: () => { clearError(); session.draw(); },
  });
  session = new GameSession(gameId, {
    board,
    onChange: update,
    onStatus: (status) => showStatus(els.connection, status),
    onWatchers: (count) => { els.watchers.textContent = formatNumber(count); },
    onRefused: refused,
    onEvent: () => { scheduleRefresh(); ghostRace?.learned(); },
  });
  session.start();
  if (payload.ghost && playing) {
    ghostRace = new GhostRace(gameId, payload.ghost, { elapsed: () => session.elapsed(), scoring: payload.scoring });
  }
  wireButtons(playing);
  showDealCode(payload.code);
  updateComplete(payload);
  setInterval(() => { els.clock.textContent = formatTime(session.elapsed()); }, 500);
  window.klondike = { session, board }; // for the browser tests and the curious
}

function update(s) {
  if (!holdMessage && saidAtSeq !== null && s.seq !== saidAtSeq) clearMessage();
  els.board.dataset.seq = String(s.seq ?? "");
  els.board.dataset.status = s.status;
  els.board.dataset.pending = String(s.pending.length);
  const view = s.shown();
  els.legend.hidden = !showsUnseen(view); // watching a fair race: what "?" means
  els.score.textContent = formatScore(s.score ?? view?.score, s.scoring);
  els.moves.textContent = formatNumber(s.moves ?? 0);
  els.clock.textContent = formatTime(s.elapsed());
  els.undo.disabled = !s.live || !(s.view?.can_undo);
  els.resign.disabled = !s.live;
  if (!s.live) {
    els.complete.hidden = true;
    els.hint.hidden = true;
    showResult(s);
  }
}

function refused(error, action) {
  const what = action?.move ? session.describe(action.move) : "";
  const reason = error.detail || error.error;
  // Translators: a move the server refused, and its reason: "9 of spades to column 4 refused: …".
  say(what ? interpolate(gettext("%(action)s refused: %(reason)s"), { action: capitalize(what), reason }) : reason, "error");
  announce(interpolate(gettext("Refused: %(reason)s"), { reason }));
}

/** A casual game's deal code (ranked ones come as null until the rule book reveals
 * them): copy it, or share a link that opens the same deal for whoever follows it. */
function showDealCode(code) {
  const line = $("#deal-line");
  if (!code) { line.hidden = true; return; }
  line.hidden = false;
  $("#deal-code").textContent = code;
  const link = `${location.origin}/deals/${encodeURIComponent(code)}/`;
  $("#copy-code").onclick = () => copyText(code, gettext("Deal code copied."));
  $("#share-deal").onclick = async () => {
    if (navigator.share) {
      try {
        await navigator.share({ title: gettext("A Klondike deal"), text: interpolate(gettext("Play deal %(code)s"), { code }), url: link });
        return;
      } catch { /* fall back */ }
    }
    copyText(link, gettext("Link to this deal copied."));
  };
}

/** A ghost race against a finished game: a new game on its deal. */
export async function raceGhost(id) {
  try {
    const game = await post("/api/games/", { ghost: id });
    location.assign(`/games/${game.id}/`);
  } catch (err) {
    say(err.detail || String(err), "error");
  }
}

function capitalize(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

function wireButtons(playing) {
  els.undo.addEventListener("click", () => session.undo());
  confirmButton(els.resign, gettext("Really give up?"), () => session.resign());
  els.newGame.addEventListener("click", () => newGame());
  els.hint.addEventListener("click", hint);
  els.complete.addEventListener("click", complete);
  if (!playing) return;
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea, select, [contenteditable]") || e.ctrlKey || e.metaKey || e.altKey) {
      if ((e.ctrlKey || e.metaKey) && e.key === "z") { e.preventDefault(); session.undo(); }
      return;
    }
    if (e.key === "u" || e.key === "U") { e.preventDefault(); session.undo(); }
    else if (e.key === "h" || e.key === "H") { if (!els.hint.hidden) hint(); }
    else if ((e.key === "d" || e.key === "D") && !e.target.closest(".board")) session.draw();
  });
}

async function newGame() {
  try {
    const game = await post("/api/games/", { draw: payload.draw, scoring: payload.scoring });
    location.assign(`/games/${game.id}/`);
  } catch (err) {
    say(err.detail || String(err), "error");
  }
}

async function hint() {
  els.hint.disabled = true;
  try {
    const result = await getOptional(`/api/games/${gameId}/hint`);
    if (!result) { say(gettext("Hints are not available.")); return; }
    const move = result.move;
    if (!move) { say(gettext("No move to suggest.")); return; }
    let text;
    if (move.type === "draw") { text = gettext("Hint: draw a card."); board.highlight(null); }
    else if (move.type === "recycle") text = gettext("Hint: turn the waste over.");
    else { text = interpolate(gettext("Hint: %(move)s."), { move: session.describe(move) }); board.highlight(move.card); }
    say(text);
    announce(text);
  } catch (err) {
    say(err.detail || String(err), "error");
  } finally {
    els.hint.disabled = false;
  }
}

async function complete() {
  els.complete.disabled = true;
  holdMessage = true;
  say(gettext("Completing…"));
  try {
    await post(`/api/games/${gameId}/complete`, { seq: (session.seq ?? 0) + 1 });
    holdMessage = false;
    clearMessage();
  } catch (err) {
    holdMessage = false;
    say(err.detail || String(err), "error");
  } finally {
    els.complete.disabled = false;
  }
}

function updateComplete(game) {
  const offered = !!game?.complete_offered && game.yours && !watchOnly && game.status === "live";
  els.complete.hidden = !offered;
  els.complete.title = offered ? gettext("Let the server play the game to a win") : (game?.complete_reason || "");
}

/** Complete is offered or not as the game goes: re-read the game's header now and then. */
function scheduleRefresh() {
  if (!payload || !("complete_offered" in payload) || !payload.yours || watchOnly) return;
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(async () => {
    try {
      payload = await get(`/api/games/${gameId}/`);
      updateComplete(payload);
    } catch { /* keep the last state */ }
  }, 400);
}

async function showResult(s) {
  if (shownResult) return;
  shownResult = true;
  const won = s.status === "won";
  const playing = payload.yours && !watchOnly;
  const ended = { resigned: gettext("Game given up"), timed_out: gettext("Time is up"), abandoned: gettext("Game abandoned") };
  let headline = ended[s.status] || gettext("Game over");
  if (won && playing) headline = gettext("You won!");
  else if (won) headline = payload.owner ? interpolate(gettext("%(name)s won!"), { name: payload.owner }) : gettext("The guest won!");
  let code = payload.code;
  try { code = (await get(`/api/games/${gameId}/`)).code || code; } catch { /* keep */ }
  replace(els.result,
    h("h2", {}, headline),
    h("p", {}, interpolate(ngettext("Score %(score)s · %(count)s move · %(time)s", "Score %(score)s · %(count)s moves · %(time)s", s.moves),
      { score: formatScore(s.score, s.scoring), count: formatNumber(s.moves ?? 0), time: formatTime(s.elapsed()) })),
    ghostRace ? h("p", { "data-testid": "ghost-verdict" }, ghostRace.verdict(s.status, s.elapsed())) : null,
    code ? h("p", {}, interpolateParts(gettext("Deal %(code)s · %(results)s"), {
      code: h("code", { "data-testid": "deal-code" }, code),
      results: h("a", { href: `/leaderboards/?tab=deal&code=${encodeURIComponent(code)}` }, gettext("results on this deal")),
    })) : null,
    h("div", { class: "inline" },
      h("button", { class: "button primary", type: "button", onclick: newGame }, gettext("New game")),
      // Translators: a button: watch the game again, move by move.
      h("a", { class: "button", href: `/replays/${gameId}/`, "data-testid": "replay-link" }, gettext("Replay")),
      playing && !payload.daily ? h("button", { class: "button", type: "button", "data-testid": "race-ghost",
        onclick: () => raceGhost(gameId) }, gettext("Race your ghost")) : null,
      h("a", { class: "button", href: "/" }, gettext("Lobby"))));
  els.result.hidden = false;
  els.result.classList.toggle("won", won);
  els.board.classList.toggle("won", won);
  els.result.focus({ preventScroll: true });
  announce(headline);
}


main();
