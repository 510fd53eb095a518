// One game over its WebSocket (/ws/games/<id>/): the confirmed position from the
// server, the player's moves in flight shown at once (predicted), snap-back with the
// server's reason when one is refused, and resumption after a lost connection with
// ?since=<last seq> — no page reload. Watching a game of a fair race, a "view" frame
// fills the board in when the viewer may now know more of its cards.

import { normalizeView, predict } from "./board.js";
import { cardLabel } from "./cards.js";
import { formatNumber, gettext, interpolate, pgettext } from "./i18n.js";
import { Channel, isOutage, retryDelay } from "./socket.js";

let nextId = 1;

export class GameSession {
  /**
   * @param {string} gameId
   * @param {object} hooks  board (Board), onChange(session), onStatus(status), onRefused(error, action),
   *                        onWatchers(count), onEvent(event), onApplied(action)
   */
  constructor(gameId, hooks) {
    this.gameId = gameId;
    this.hooks = hooks;
    this.board = hooks.board;
    this.game = null;          // the REST game payload of the last snapshot (header fields)
    this.seq = null;           // last event number seen
    this.view = null;          // confirmed public view
    this.status = "live";
    this.score = null;
    this.moves = 0;
    this.pending = [];         // actions not yet confirmed: {id, frame, move, sentSeq}
    this.watchers = 0;
    this.startedAt = null;     // performance.now() at the first action
    this.finishedSeconds = null;
    this.retrying = false;     // the "server busy" notice is up
    this.retryTimer = null;    // set while an action waits to be sent again (database outage)
    this.channel = new Channel(`/ws/games/${gameId}/`, {
      query: () => (this.seq === null ? {} : { since: this.seq }),
      onMessage: (m) => this.receive(m),
      onStatus: (s) => this.connectionChanged(s),
    });
  }

  start() { this.channel.connect(); return this; }
  stop() { clearTimeout(this.retryTimer); this.channel.close(); }

  get live() { return this.status === "live"; }
  get draw() { return this.game?.draw ?? this.view?.draw ?? 1; }
  get scoring() { return this.game?.scoring ?? this.view?.scoring ?? "normal"; }

  elapsed() {
    if (this.finishedSeconds !== null) return this.finishedSeconds;
    if (this.startedAt === null) return 0;
    return (performance.now() - this.startedAt) / 1000;
  }

  connectionChanged(status) {
    if (status === "open") {
      // Anything sent but not confirmed is sent again with the same seq: the server
      // answers a retry of an applied move with its first result (idempotent).
      for (const item of this.pending) item.sentSeq = null;
      this.pump();
    }
    this.hooks.onStatus?.(status);
  }

  receive(message) {
    switch (message.type) {
      case "snapshot": this.snapshot(message); break;
      case "event": this.event(message); break;
      case "view": this.viewChanged(message); break;
      case "ack": this.retried(); break; // the event follows at once
      case "error": this.error(message); break;
      case "watchers": this.watchers = message.count; this.hooks.onWatchers?.(message.count); break;
      default: break;
    }
  }

  snapshot(message) {
    const game = message.game || {};
    this.game = { ...(this.game || {}), ...game };
    this.seq = message.seq;
    this.status = game.status || this.status;
    this.view = normalizeView(game.view, game.draw);
    this.score = game.score ?? this.view?.score;
    this.moves = game.moves ?? this.view?.moves ?? 0;
    if (game.seconds !== null && game.seconds !== undefined) {
      if (this.status === "live") this.startedAt = performance.now() - game.seconds * 1000;
      else this.finishedSeconds = game.seconds;
    } else if (this.status !== "live") {
      this.finishedSeconds = 0;
    }
    this.dropResolved();
    this.refresh();
    this.pump();
  }

  event(message) {
    if (this.seq !== null && message.seq <= this.seq) return; // seen already
    this.seq = message.seq;
    this.score = message.score;
    this.moves = message.moves;
    if (message.view) this.view = normalizeView(message.view, this.draw);
    const wasLive = this.live;
    if (message.status) this.status = message.status;
    if (this.startedAt === null && message.seq >= 1) this.startedAt = performance.now();
    if (wasLive && !this.live) this.finishedSeconds = this.elapsed();
    this.dropResolved();
    this.hooks.onEvent?.(message);
    if (message.view) this.refresh();
    this.pump();
  }

  /** The same position (no move happened) with names the viewer has just learned. */
  viewChanged(message) {
    if (message.game !== undefined && String(message.game) !== String(this.gameId)) return;
    if (this.seq !== null && message.seq < this.seq) return;
    this.seq = message.seq;
    this.view = normalizeView(message.view, this.draw);
    this.refresh();
  }

  /** Actions whose seq the server has now used are settled, whoever played it. */
  dropResolved() {
    this.pending = this.pending.filter((item) => item.sentSeq === null || item.sentSeq > this.seq);
  }

  error(message) {
    const index = message.id !== undefined ? this.pending.findIndex((item) => item.id === message.id) : -1;
    if (isOutage(message)) {
      if (index >= 0) this.retryLater(this.pending[index], message.retry_after);
      return; // a socket closed with "try again later" reconnects by itself
    }
    if (message.error === "seq_conflict") {
      // Someone else (another tab) played in between: catch up and drop our guesses.
      const refused = this.pending.splice(0);
      this.channel.send({ type: "sync", since: this.seq });
      this.refresh();
      if (refused.length) this.hooks.onRefused?.(message, refused[0]);
      return;
    }
    if (index >= 0) {
      // The move and everything queued after it assumed it would be accepted.
      const [refused] = this.pending.splice(index);
      this.refresh();
      this.board?.refuse(refused.move?.card);
      this.hooks.onRefused?.(message, refused);
      this.pump();
      return;
    }
    this.hooks.onRefused?.(message, null);
  }

  /** The server could not take the action now (database busy or down): keep it,
   * show that we are reconnecting, and send it again with the same seq — a move that
   * did land is answered with its first result. */
  retryLater(item, retryAfter) {
    item.sentSeq = null;
    this.retrying = true;
    this.hooks.onStatus?.("retrying");
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => { this.retryTimer = null; this.pump(); }, retryDelay(retryAfter));
  }

  /** An answer came: the notice of a retried action goes. */
  retried() {
    if (!this.retrying || this.retryTimer !== null) return;
    this.retrying = false;
    this.hooks.onStatus?.(this.channel.status);
  }

  // -- the player's actions --------------------------------------------------------

  move(move) { return this.act({ type: "move", move }, move); }
  undo() { return this.act({ type: "undo" }, { type: "undo" }); }
  resign() { return this.act({ type: "resign" }, { type: "resign" }); }
  draw() {
    const v = this.shown();
    if (!v) return;
    // Whether the waste may go back is the engine's to say (no second pass in Vegas).
    if (v.stock.count > 0) this.move({ type: "draw" });
    else if (v.can_recycle) this.move({ type: "recycle" });
  }

  act(frame, move) {
    if (!this.live) {
      this.hooks.onRefused?.({ error: "game_over", detail: gettext("this game is over") }, null);
      return;
    }
    const item = { id: nextId++, frame, move, sentSeq: null };
    this.pending.push(item);
    this.refresh();
    this.pump();
  }

  /** Send the next action, one at a time, each with the seq it will get. */
  pump() {
    if (this.seq === null || !this.channel.open || this.retryTimer !== null) return;
    if (this.pending.some((item) => item.sentSeq !== null)) return;
    const next = this.pending[0];
    if (!next) return;
    next.sentSeq = this.seq + 1;
    this.channel.send({ ...next.frame, seq: next.sentSeq, id: next.id });
  }

  /** The view to show: the confirmed one with the moves in flight applied. */
  shown() {
    let view = this.view;
    for (const item of this.pending) {
      const guessed = predict(view, item.move);
      if (guessed) view = guessed;
    }
    return view;
  }

  refresh() {
    const view = this.shown();
    if (view && this.board) this.board.setView(view);
    this.hooks.onChange?.(this);
  }

  /** An action in words, lower case: "9 of spades to column 4", "draw". */
  describe(action) {
    if (!action) return "";
    if (action.type === "move") {
      const card = action.card ? cardLabel(action.card) : gettext("a card");
      if (action.to === "foundation") return interpolate(gettext("%(card)s to its foundation"), { card });
      if (/^t\d$/.test(action.to)) {
        return interpolate(gettext("%(card)s to column %(column)s"), { card, column: formatNumber(Number(action.to.slice(1))) });
      }
      if (action.to === "tableau") return interpolate(gettext("%(card)s to a column"), { card });
      return interpolate(gettext("%(card)s to %(place)s"), { card, place: action.to });
    }
    const names = {
      draw: pgettext("action", "draw"),
      recycle: pgettext("action", "recycle"),
      undo: pgettext("action", "undo"),
      resign: pgettext("action", "resign"),
    };
    return names[action.type] || action.type;
  }
}
