// The ghost of a ghost race: a recorded game on the same deal, played back beside the
// player's board at its original pace from the player's first move. The server sends
// the ghost's board as the player may see it (cards they have not had face up are
// "??"), for the moment asked and never a later one.
import { get } from "./api.js";
import { Board, showsUnseen } from "./board.js";
import { formatNumber, gettext, interpolate, ngettext, pgettext } from "./i18n.js";
import { $, formatScore, formatTime, homeText } from "./util.js";

const TICK_MS = 250;

/** How the ghost's game ended, after " · " on its line. */
function statusText(status) {
  const texts = {
    won: pgettext("the ghost", "won"),
    resigned: pgettext("the ghost", "gave up"),
    timed_out: pgettext("the ghost", "ran out of time"),
    abandoned: pgettext("the ghost", "was abandoned"),
  };
  return texts[status] || status;
}

/** Before the player's first move: how the recorded game ended, and when. */
function startsText(status, time) {
  const texts = {
    won: gettext("Starts with your first move · it won in %(time)s"),
    resigned: gettext("Starts with your first move · it gave up after %(time)s"),
    timed_out: gettext("Starts with your first move · it ran out of time after %(time)s"),
    abandoned: gettext("Starts with your first move · it was abandoned after %(time)s"),
  };
  return interpolate(texts[status] || gettext("Starts with your first move · it ended after %(time)s"), { time });
}

/** The player won; the ghost did not. */
function wonText(status, time, ghostTime) {
  const texts = {
    resigned: gettext("You won in %(time)s; the ghost gave up after %(ghost_time)s."),
    timed_out: gettext("You won in %(time)s; the ghost ran out of time after %(ghost_time)s."),
    abandoned: gettext("You won in %(time)s; the ghost was abandoned after %(ghost_time)s."),
  };
  return interpolate(texts[status] || gettext("You won in %(time)s; the ghost did not win (%(ghost_time)s)."),
    { time, ghost_time: ghostTime });
}

export class GhostRace {
  constructor(gameId, ghost, { elapsed, scoring }) {
    this.gameId = gameId;
    this.ghost = ghost;
    this.elapsed = elapsed;      // () => the player's clock, seconds (0 until the first move)
    this.scoring = scoring;
    this.nextAt = 0;
    this.fetching = false;
    this.state = null;
    $("#ghost-area").hidden = false;
    $("#play-area").classList.add("with-ghost");
    const title = ghost.owner ? interpolate(gettext("Ghost of %(name)s"), { name: ghost.owner }) : gettext("Ghost of a guest");
    $("#ghost-h").textContent = title;
    this.board = new Board($("#ghost-board"), { interactive: false, compact: true, name: title });
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.fetch(0);
  }

  tick() {
    const now = this.elapsed();
    if (now > 0 && this.nextAt !== null && now >= this.nextAt) this.fetch(now);
  }

  /** The player's own game moved: a card they have now seen may be named on the ghost. */
  learned() {
    if (this.state && showsUnseen(this.state.view)) this.fetch(this.elapsed());
  }

  async fetch(at) {
    if (this.fetching) return;
    this.fetching = true;
    try {
      const state = await get(`/api/games/${this.gameId}/ghost?at=${Math.max(0, at).toFixed(3)}`);
      this.state = state;
      this.nextAt = state.next_at;
      this.board.setView(state.view);
      $("#ghost-area").dataset.seq = String(state.seq);
      const parts = [formatScore(state.score, this.scoring),
        interpolate(ngettext("%(count)s move", "%(count)s moves", state.moves), { count: formatNumber(state.moves) }),
        homeText(state.foundation_count)];
      if (state.status !== "live") parts.push(statusText(state.status));
      $("#ghost-line").textContent = state.seq > 0 ? parts.join(" · ")
        : startsText(this.ghost.status, formatTime(this.ghost.seconds));
    } catch { /* the next tick asks again */ } finally {
      this.fetching = false;
    }
  }

  stop() { clearInterval(this.timer); }

  /** The result against the ghost, once the player's game is over. */
  verdict(status, seconds) {
    const g = this.ghost;
    const ghostTime = g.seconds === null || g.seconds === undefined ? null : g.seconds;
    if (status === "won" && g.status === "won") {
      const gap = Math.abs(seconds - ghostTime);
      const times = { time: formatTime(seconds), ghost_time: formatTime(ghostTime), gap: formatTime(gap) };
      if (gap < 0.5) return interpolate(gettext("A dead heat with the ghost: both in %(time)s."), times);
      return seconds < ghostTime
        ? interpolate(gettext("You beat the ghost by %(gap)s (%(time)s against %(ghost_time)s)."), times)
        : interpolate(gettext("The ghost was faster by %(gap)s (%(ghost_time)s against your %(time)s)."), times);
    }
    if (status === "won") return wonText(g.status, formatTime(seconds), formatTime(ghostTime));
    if (g.status === "won") return interpolate(gettext("The ghost won in %(time)s."), { time: formatTime(ghostTime) });
    return interpolate(gettext("Neither of you won: the ghost had %(count)s/52 home."), { count: formatNumber(g.foundation_count ?? 0) });
  }
}
