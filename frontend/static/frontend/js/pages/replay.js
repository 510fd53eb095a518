// A finished game's replay: its board at every move, the move list, and controls to
// step, play (at the original pace, or faster) and scrub; ?at=N links to a move.
import { ApiError, get, post } from "../api.js";
import { Board, normalizeView } from "../board.js";
import { ReplayControls } from "../replay-controls.js";
import { moveNodes } from "../replay-text.js";
import { $, formatDate, formatScore, formatTime, h, modeName, playerLink, replace } from "../util.js";

const gameId = document.body.dataset.gameId;
const STATUS = { won: "won", resigned: "gave up", timed_out: "ran out of time", abandoned: "abandoned" };

async function main() {
  let replay;
  try {
    replay = await get(`/api/games/${gameId}/replay?views=true`);
  } catch (err) {
    const text = err instanceof ApiError && err.status === 404 ? "There is no such game."
      : err instanceof ApiError && err.status === 409 ? "This replay opens once the game is over, and its race or daily deal too."
        : "The replay could not be loaded.";
    $("#replay-error").textContent = text;
    return;
  }
  const who = replay.owner ? `${replay.owner}'s game` : "A guest's game";
  $("#replay-title").textContent = `Replay · ${who}`;
  document.title = `Replay of ${who} · Klondike`;
  replace($("#replay-meta"), replay.owner ? playerLink(replay.owner) : "A guest", " · ",
    modeName(replay.draw, replay.scoring), ` · ${STATUS[replay.status] || replay.status} · `,
    formatDate(replay.finished_at, true), replay.race ? [" · ", h("a", { href: `/races/${replay.race}/replay/` }, "the whole race")] : null,
    " · deal ", h("code", {}, replay.code));
  $("#replay").hidden = false;
  const ghost = h("button", { class: "button primary small", type: "button", "data-testid": "race-ghost" }, "Race this game's ghost");
  ghost.addEventListener("click", async () => {
    ghost.disabled = true;
    try {
      const game = await post("/api/games/", { ghost: gameId });
      location.assign(`/games/${game.id}/`);
    } catch (err) { ghost.disabled = false; $("#replay-error").textContent = err.detail || String(err); }
  });
  $("#replay-meta").append(" ", ghost);

  const board = new Board($("#board"), { interactive: false, name: `${who}, replay` });
  const steps = [{ view: replay.start_view, score: null, moves: 0, at: null }, ...replay.moves];
  const start = Date.parse(replay.started_at || replay.created_at);
  const list = $("#move-list");
  const items = replay.moves.map((m, i) => h("li", {},
    h("a", { href: `?at=${i + 1}`, "data-step": i + 1 }, moveNodes(m.move, m.flipped))));
  replace(list, items);
  list.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-step]");
    if (!link) return;
    event.preventDefault();
    controls.go(Number(link.dataset.step));
  });

  const controls = new ReplayControls({
    count: steps.length,
    delayTo: (i) => (i === 0 ? 600 : Date.parse(steps[i + 1].at) - Date.parse(steps[i].at)),
    show: (i) => {
      const step = steps[i];
      board.setView(normalizeView(step.view, replay.draw));
      $("#step").textContent = `${i} of ${steps.length - 1}`;
      $("#score").textContent = step.score === null ? formatScore(replay.start_view.score, replay.scoring) : formatScore(step.score, replay.scoring);
      $("#time").textContent = step.at ? formatTime(Math.max(0, (Date.parse(step.at) - start) / 1000)) : "0:00";
      $("#home-count").textContent = `${step.view.foundation_count}/52`;
      for (const [k, item] of items.entries()) {
        const link = item.firstChild;
        if (k === i - 1) { link.setAttribute("aria-current", "step"); item.scrollIntoView?.({ block: "nearest" }); }
        else link.removeAttribute("aria-current");
      }
    },
  });
}

main();
