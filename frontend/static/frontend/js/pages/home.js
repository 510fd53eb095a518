// Home and lobby: new game, a deal code, the daily deals, open races, live games.
import { ApiError, currentUser, get, getOptional, post } from "../api.js";
import { Channel } from "../socket.js";
import { setUpPlayTogether } from "../play-together.js";
import { formatDateIn, formatNumber, gettext, interpolate, ngettext, pgettext } from "../i18n.js";
import { $, formatTime, h, homeText, modeName, ratedText, replace } from "../util.js";

const newGame = $("#new-game");
const codeForm = $("#play-code");
const codeError = $("#code-error");
const raceForm = $("#new-race");
let user = null;

newGame.addEventListener("change", () => {
  $("#vegas-note").hidden = newGame.elements.scoring.value !== "vegas";
});

newGame.addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = newGame.querySelector("button");
  button.disabled = true;
  try {
    const game = await post("/api/games/", {
      draw: Number(newGame.elements.draw.value),
      scoring: newGame.elements.scoring.value,
    });
    location.assign(`/games/${game.id}/`);
  } catch (err) {
    button.disabled = false;
    codeError.textContent = err.detail || String(err);
  }
});

codeForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  codeError.textContent = "";
  const input = codeForm.elements.code;
  input.removeAttribute("aria-invalid");
  try {
    const game = await post("/api/games/", { code: input.value.trim() });
    location.assign(`/games/${game.id}/`);
  } catch (err) {
    codeError.textContent = err instanceof ApiError ? err.detail : String(err);
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
});

// Open boards show every card to everyone: such a race is never rated.
raceForm.elements.open_boards.addEventListener("change", () => {
  const f = raceForm.elements;
  f.rated.disabled = f.open_boards.checked;
  f.rated.checked = !f.open_boards.checked;
});

raceForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = raceForm.querySelector(".field-error");
  error.textContent = "";
  if (!user) {
    location.assign(`/login/?next=${encodeURIComponent("/")}`);
    return;
  }
  const f = raceForm.elements;
  try {
    const race = await post("/api/races/", {
      draw: Number(f.draw.value),
      scoring: f.scoring.value,
      max_players: Number(f.max_players.value),
      time_limit: Math.round(Number(f.minutes.value) * 60),
      spectator_delay: Number(f.spectator_delay.value),
      public: f.public.checked,
      rated: f.rated.checked && !f.open_boards.checked,
      open_boards: f.open_boards.checked,
    });
    location.assign(`/races/${race.id}/`);
  } catch (err) {
    error.textContent = err.detail || String(err);
  }
});

async function daily() {
  const box = $("#daily");
  let data = null;
  try { data = await getOptional("/api/daily"); } catch { data = null; }
  if (!data || !Array.isArray(data.deals)) {
    replace(box, h("p", { class: "empty" }, gettext("The daily deals are not available right now.")));
    return;
  }
  replace(box,
    h("p", { class: "muted" }, interpolate(gettext("Deals of %(date)s (UTC). The first attempt counts; later ones are practice."),
      { date: dayText(data.date) })),
    ...data.deals.map((deal) => {
      const label = deal.draw === 3 ? gettext("Daily · draw three") : gettext("Daily · draw one");
      const actions = [];
      if (deal.ranked_game) {
        actions.push(h("a", { class: "button", href: `/games/${deal.ranked_game}/` }, gettext("Your attempt")));
      }
      // Translators: buttons of a daily deal: play it again for practice, or play it (the attempt that counts).
      const start = h("button", { class: `button ${deal.attempted ? "" : "primary"}`, type: "button" },
        deal.attempted ? gettext("Practice") : pgettext("daily deal", "Play"));
      start.addEventListener("click", async () => {
        start.disabled = true;
        try {
          const game = await post("/api/games/", { daily: true, draw: deal.draw });
          location.assign(`/games/${game.id}/`);
        } catch (err) {
          start.disabled = false;
          replace(status, err.detail || String(err));
        }
      });
      actions.push(start);
      // Translators: a link to a daily deal's leaderboard.
      actions.push(h("a", { href: `/leaderboards/?tab=daily&draw=${deal.draw}&date=${data.date}` }, gettext("Board")));
      const status = h("p", { class: "field-error", role: "alert" });
      return h("div", { class: "daily-deal" },
        h("div", {}, h("strong", {}, label), h("div", { class: "meta muted" }, deal.attempted ? gettext("Attempted") : gettext("Not played yet"))),
        h("div", { class: "inline" }, actions), status);
    }));
}

/** "2024-05-01" (a UTC day) in the page's language: "May 1, 2024". */
function dayText(date) {
  const day = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(day.getTime()) ? String(date) : formatDateIn(day, { dateStyle: "long", timeZone: "UTC" });
}

function watchers(n) {
  return n ? ` · ${interpolate(ngettext("%(count)s spectator", "%(count)s spectators", n), { count: formatNumber(n) })}` : "";
}

function movesText(n) {
  return interpolate(ngettext("%(count)s move", "%(count)s moves", n ?? 0), { count: formatNumber(n ?? 0) });
}

/** A featured game's title: the racers ("alice vs bob"), or the player. */
function pickTitle(pick) {
  if (pick.kind === "race") {
    const names = (pick.players || []).map((p) => p.player);
    const title = names.length ? names.join(` ${pgettext("race", "vs")} `) : pick.title;
    return interpolate(gettext("Race: %(title)s"), { title });
  }
  // The server names a game without an account "A guest" (no username has a space).
  return pick.title === "A guest" ? gettext("A guest") : pick.title;
}

/** A race's phase, on its tag in the lobby. */
function phaseText(phase) {
  const texts = {
    open: pgettext("race phase", "open"),
    countdown: pgettext("race phase", "countdown"),
    running: pgettext("race phase", "running"),
    finished: pgettext("race phase", "finished"),
    cancelled: pgettext("race phase", "cancelled"),
  };
  return texts[phase] || phase;
}

/** "2/4 players", "4/4 players (full)". */
function playersText(race) {
  const values = { count: formatNumber(race.players), max: formatNumber(race.max_players) };
  return race.full ? interpolate(ngettext("%(count)s/%(max)s player (full)", "%(count)s/%(max)s players (full)", race.max_players), values)
    : interpolate(ngettext("%(count)s/%(max)s player", "%(count)s/%(max)s players", race.max_players), values);
}

function showLobby(data) {
  const races = data.races || [];
  const games = data.games || [];
  const top = data.top || [];
  replace($("#top-games"), top.length
    ? h("ol", { class: "list", "data-testid": "top-games" }, top.map((pick) => h("li", {},
      h("div", {},
        h("strong", {}, pickTitle(pick)), " ",
        // Translators: a tag on a race whose racers are close to each other.
        pick.kind === "race" && pick.closeness >= 0.9 ? h("span", { class: "tag live" }, pgettext("race", "close")) : null,
        h("div", { class: "meta" }, `${modeName(pick.draw, pick.scoring)} · ${interpolate(gettext("rating %(rating)s"), { rating: formatNumber(pick.rating) })}${watchers(pick.watchers)}`
          + (pick.kind === "race" ? ` · ${pick.players.map((p) => `${p.player} ${formatNumber(p.foundation_count)}/52`).join(", ")}` : ` · ${homeText(pick.foundation_count)}`))),
      h("a", { class: "button small primary", href: pick.watch }, gettext("Watch")))))
    : h("p", { class: "empty" }, gettext("Nothing to watch right now.")));
  replace($("#open-races"), races.length
    ? h("ul", { class: "list", "data-testid": "races" }, races.map((race) => h("li", {},
      h("div", {},
        h("strong", {}, interpolate(gettext("%(name)s's race"), { name: race.host })), " ",
        h("span", { class: `tag ${race.phase === "open" ? "" : "live"}` }, phaseText(race.phase)), " ",
        race.open_boards ? h("span", { class: "tag", "data-testid": "open-boards",
          title: gettext("Every card is shown live to everyone") }, gettext("open boards")) : null, " ",
        race.rated === false ? h("span", { class: "tag", "data-testid": "unrated",
          title: gettext("The result changes no rating") }, ratedText(false)) : null,
        h("div", { class: "meta" }, `${modeName(race.draw, race.scoring)} · ${playersText(race)} · ${formatTime(race.time_limit)}${watchers(race.watchers)}`)),
      h("a", { class: "button small", href: `/races/${race.id}/` }, race.phase === "open" && !race.full ? gettext("Join") : gettext("Watch")))))
    : h("p", { class: "empty" }, gettext("No open races. Open one!")));
  replace($("#live-games"), games.length
    ? h("ul", { class: "list", "data-testid": "live-games" }, games.map((game) => h("li", { "data-game": game.id },
      h("div", {},
        game.owner ? h("strong", {}, game.owner) : h("span", { class: "muted" }, gettext("A guest")),
        h("div", { class: "meta" }, `${modeName(game.draw, game.scoring)} · ${movesText(game.moves)} · ${homeText(game.foundation_count)}${watchers(game.watchers)}`)),
      h("a", { class: "button small", href: `/watch/${game.id}/` }, gettext("Watch")))))
    : h("p", { class: "empty" }, gettext("Nobody is playing in public right now.")));
}

async function myGames() {
  try {
    const page = await get("/api/games/?status=live&limit=10");
    const games = page.results || [];
    if (!games.length) return;
    $("#mine-panel").hidden = false;
    replace($("#my-games"), h("ul", { class: "list" }, games.map((game) => h("li", {},
      h("div", {}, h("strong", {}, modeName(game.draw, game.scoring)),
        h("div", { class: "meta" }, `${movesText(game.moves)} · ${homeText(game.foundation_count)}`)),
      h("a", { class: "button small", href: `/games/${game.id}/` }, gettext("Resume"))))));
  } catch { /* no games */ }
}

async function main() {
  try { user = await currentUser(); } catch { user = null; }
  if (!user) {
    const summary = $("#new-race-box summary");
    summary.textContent = gettext("Open a race (log in first)");
  }
  setUpPlayTogether(user);
  daily();
  myGames();
  try { showLobby(await get("/api/lobby")); } catch { /* the socket will fill it */ }
  const lobby = new Channel("/ws/lobby/", {
    onMessage: (message) => { if (message.type === "lobby") showLobby(message); },
  });
  lobby.connect();
}

main();
