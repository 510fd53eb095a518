// A finished game's replay: its board at every move, the move list, and controls to
// step, play (at the original pace, or faster) and scrub; ?at=N links to a move.
import { ApiError, get, post } from "../api.js";
import { Board, normalizeView } from "../board.js";
import { formatNumber, gettext, interpolate, pgettext } from "../i18n.js";
import { ReplayControls } from "../replay-controls.js";
import { moveNodes } from "../replay-text.js";
import { $, formatDate, formatScore, formatTime, h, modeName, playerLink, replace } from "../util.js";

const gameId = document.body.dataset.gameId;
// Translators: how a replayed game ended.
const STATUS = {
  won: pgettext("game", "won"), resigned: pgettext("game", "gave up"), timed_out: pgettext("game", "ran out of time"),
  abandoned: pgettext("game", "abandoned"),
};

async function main() {
  let replay;
  try {
    replay = await get(`/api/games/${gameId}/replay?views=true`);
  } catch (err) {
    const text = err instanceof ApiError && err.status === 404 ? gettext("There is no such game.")
      : err instanceof ApiError && err.status === 409 ? gettext("This replay opens once the game is over, and its race or daily deal too.")
        : gettext("The replay could not be loaded.");
    $("#replay-error").textContent = text;
    return;
  }
  const owner = replay.owner;
  $("#replay-title").textContent = owner ? interpolate(gettext("Replay · %(name)s's game"), { name: owner }) : gettext("Replay · A guest's game");
  document.title = owner ? interpolate(gettext("Replay of %(name)s's game · Klondike"), { name: owner })
    : gettext("Replay of a guest's game · Klondike");
  replace($("#replay-meta"), owner ? playerLink(owner) : gettext("A guest"), " · ",
    modeName(replay.draw, replay.scoring), ` · ${STATUS[replay.status] || replay.status} · `,
    formatDate(replay.finished_at, true), replay.race ? [" · ", h("a", { href: `/races/${replay.race}/replay/` }, gettext("the whole race"))] : null,
    // Translators: before a deal code, in a replay's line of facts.
    ` · ${gettext("deal")} `, h("code", {}, replay.code));
  $("#replay").hidden = false;
  const ghost = h("button", { class: "button primary small", type: "button", "data-testid": "race-ghost" }, gettext("Race this game's ghost"));
  ghost.addEventListener("click", async () => {
    ghost.disabled = true;
    try {
      const game = await post("/api/games/", { ghost: gameId });
      location.assign(`/games/${game.id}/`);
    } catch (err) { ghost.disabled = false; $("#replay-error").textContent = err.detail || String(err); }
  });
  $("#replay-meta").append(" ", ghost);

  const board = new Board($("#board"), { interactive: false,
    name: owner ? interpolate(gettext("%(name)s's game, replay"), { name: owner }) : gettext("A guest's game, replay") });
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
      $("#step").textContent = interpolate(gettext("%(index)s of %(count)s"), { index: formatNumber(i), count: formatNumber(steps.length - 1) });
      $("#score").textContent = step.score === null ? formatScore(replay.start_view.score, replay.scoring) : formatScore(step.score, replay.scoring);
      $("#time").textContent = step.at ? formatTime(Math.max(0, (Date.parse(step.at) - start) / 1000)) : "0:00";
      $("#home-count").textContent = `${formatNumber(step.view.foundation_count)}/52`;
      for (const [k, item] of items.entries()) {
        const link = item.firstChild;
        if (k === i - 1) { link.setAttribute("aria-current", "step"); item.scrollIntoView?.({ block: "nearest" }); }
        else link.removeAttribute("aria-current");
      }
    },
  });
}

main();
