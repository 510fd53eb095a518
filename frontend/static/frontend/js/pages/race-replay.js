// A finished race replayed: every racer's board side by side, in time (each board at
// its racer's last move before the moment shown). Available once the race is over,
// as the rule book has it: while it runs, spectators see it live, with its delay.
import { ApiError, get } from "../api.js";
import { Board, normalizeView } from "../board.js";
import { ReplayControls } from "../replay-controls.js";
import { moveText } from "../replay-text.js";
import { $, formatScore, formatTime, h, modeName, playerLink, replace } from "../util.js";

const raceId = document.body.dataset.raceId;

async function main() {
  let race;
  try {
    race = await get(`/api/races/${raceId}/`);
  } catch (err) {
    $("#replay-error").textContent = err instanceof ApiError && err.status === 404 ? "There is no such race." : "The race could not be loaded.";
    return;
  }
  if (race.phase !== "finished") {
    replace($("#replay-error"), "This race is not over yet: its replay opens when it ends. ",
      h("a", { href: `/races/${raceId}/` }, "Watch it live"));
    return;
  }
  const racers = race.entries.filter((e) => e.game);
  const replays = await Promise.all(racers.map((e) => get(`/api/games/${e.game}/replay?views=true`)));
  $("#replay-title").textContent = `Race replay · ${modeName(race.draw, race.scoring)}`;
  replace($("#replay-meta"), `${racers.length} racers · deal `, h("code", {}, race.code), " · ",
    h("a", { href: `/races/${raceId}/` }, "results"));
  $("#replay").hidden = false;

  const start = Date.parse(race.starts_at);
  // Every racer's events on one timeline; a moment is "after the k-th event of the race".
  const events = [];
  replays.forEach((replay, r) => replay.moves.forEach((m, i) => events.push({ r, i, t: Date.parse(m.at) })));
  events.sort((a, b) => a.t - b.t || a.r - b.r);
  const panels = racers.map((entry, r) => {
    const root = h("div", { class: "board" });
    const line = h("p", { class: "meta" });
    const panel = h("section", { class: "panel", "aria-label": `${entry.player}'s board`, "data-player": entry.player },
      h("h2", {}, playerLink(entry.player), entry.rank ? ` · #${entry.rank}` : ""), line, root);
    return { panel, line, board: new Board(root, { interactive: false, compact: racers.length > 2, name: entry.player }), replay: replays[r] };
  });
  replace($("#boards"), panels.map((p) => p.panel));

  const last = new Array(racers.length).fill(-1); // per racer: the index of its last move shown
  const controls = new ReplayControls({
    count: events.length + 1,
    delayTo: (k) => (k === 0 ? Math.max(300, events[0].t - start) : events[k].t - events[k - 1].t),
    show: (k) => {
      last.fill(-1);
      for (const e of events.slice(0, k)) last[e.r] = e.i;
      panels.forEach((p, r) => {
        const i = last[r];
        const step = i < 0 ? null : p.replay.moves[i];
        p.board.setView(normalizeView(step ? step.view : p.replay.start_view, race.draw));
        p.line.textContent = step
          ? `${moveText(step.move, step.flipped)} · score ${formatScore(step.score, race.scoring)} · ${step.view.foundation_count}/52 home · ${step.moves} moves`
          : "Not started";
      });
      const at = k ? events[k - 1].t : start;
      $("#time").textContent = formatTime(Math.max(0, (at - start) / 1000));
    },
  });
  return controls;
}

main();
