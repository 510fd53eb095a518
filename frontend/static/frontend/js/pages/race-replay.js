// A finished race replayed: every racer's board side by side, in time (each board at
// its racer's last move before the moment shown). Available once the race is over,
// as the rule book has it: while it runs, spectators see it live, with its delay.
import { ApiError, get } from "../api.js";
import { Board, normalizeView } from "../board.js";
import { formatNumber, gettext, interpolate, interpolateParts, ngettext } from "../i18n.js";
import { ReplayControls } from "../replay-controls.js";
import { moveText } from "../replay-text.js";
import { $, formatScore, formatTime, h, homeText, modeName, playerLink, replace } from "../util.js";

const raceId = document.body.dataset.raceId;

async function main() {
  let race;
  try {
    race = await get(`/api/races/${raceId}/`);
  } catch (err) {
    $("#replay-error").textContent = err instanceof ApiError && err.status === 404 ? gettext("There is no such race.")
      : gettext("The race could not be loaded.");
    return;
  }
  if (race.phase !== "finished") {
    replace($("#replay-error"), interpolateParts(gettext("This race is not over yet: its replay opens when it ends. %(link)s"),
      { link: h("a", { href: `/races/${raceId}/` }, gettext("Watch it live")) }));
    return;
  }
  const racers = race.entries.filter((e) => e.game);
  const replays = await Promise.all(racers.map((e) => get(`/api/games/${e.game}/replay?views=true`)));
  $("#replay-title").textContent = interpolate(gettext("Race replay · %(mode)s"), { mode: modeName(race.draw, race.scoring) });
  replace($("#replay-meta"), interpolateParts(ngettext("%(count)s racer · deal %(code)s · %(results)s",
    "%(count)s racers · deal %(code)s · %(results)s", racers.length), {
    count: formatNumber(racers.length), code: h("code", {}, race.code),
    // Translators: a link to the race's page and its results.
    results: h("a", { href: `/races/${raceId}/` }, gettext("results")),
  }));
  $("#replay").hidden = false;

  const start = Date.parse(race.starts_at);
  // Every racer's events on one timeline; a moment is "after the k-th event of the race".
  const events = [];
  replays.forEach((replay, r) => replay.moves.forEach((m, i) => events.push({ r, i, t: Date.parse(m.at) })));
  events.sort((a, b) => a.t - b.t || a.r - b.r);
  const panels = racers.map((entry, r) => {
    const root = h("div", { class: "board" });
    const line = h("p", { class: "meta" });
    const panel = h("section", { class: "panel", "aria-label": interpolate(gettext("%(name)s's board"), { name: entry.player }), "data-player": entry.player },
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
          ? interpolate(ngettext("%(move)s · score %(score)s · %(home)s · %(count)s move", "%(move)s · score %(score)s · %(home)s · %(count)s moves", step.moves), {
            move: moveText(step.move, step.flipped), score: formatScore(step.score, race.scoring),
            home: homeText(step.view.foundation_count), count: formatNumber(step.moves),
          })
          : gettext("Not started");
      });
      const at = k ? events[k - 1].t : start;
      $("#time").textContent = formatTime(Math.max(0, (at - start) / 1000));
    },
  });
  return controls;
}

main();
