// The ghost of a ghost race: a recorded game on the same deal, played back beside the
// player's board at its original pace from the player's first move. The server sends
// the ghost's board as the player may see it (cards they have not had face up are
// "??"), for the moment asked and never a later one.
import { get } from "./api.js";
import { Board, showsUnseen } from "./board.js";
import { $, formatScore, formatTime } from "./util.js";

const TICK_MS = 250;
const STATUS = { won: "won", resigned: "gave up", timed_out: "ran out of time", abandoned: "was abandoned" };

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
    $("#ghost-h").textContent = `Ghost of ${ghost.owner || "a guest"}`;
    this.board = new Board($("#ghost-board"), { interactive: false, compact: true, name: `Ghost of ${ghost.owner || "a guest"}` });
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
      const done = state.status !== "live" ? ` · ${STATUS[state.status] || state.status}` : "";
      $("#ghost-line").textContent = state.seq > 0
        ? `${formatScore(state.score, this.scoring)} · ${state.moves} moves · ${state.foundation_count}/52 home${done}`
        : `Starts with your first move · it ${STATUS[this.ghost.status] || this.ghost.status} in ${formatTime(this.ghost.seconds)}`;
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
      if (gap < 0.5) return `A dead heat with the ghost: both in ${formatTime(seconds)}.`;
      return seconds < ghostTime
        ? `You beat the ghost by ${formatTime(gap)} (${formatTime(seconds)} against ${formatTime(ghostTime)}).`
        : `The ghost was faster by ${formatTime(gap)} (${formatTime(ghostTime)} against your ${formatTime(seconds)}).`;
    }
    if (status === "won") return `You won in ${formatTime(seconds)}; the ghost ${STATUS[g.status] || g.status} after ${formatTime(ghostTime)}.`;
    if (g.status === "won") return `The ghost won in ${formatTime(ghostTime)}.`;
    return `Neither of you won: the ghost had ${g.foundation_count}/52 home.`;
  }
}
