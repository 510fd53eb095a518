// Home and lobby: new game, a deal code, the daily deals, open races, live games.
import { ApiError, currentUser, get, getOptional, post } from "../api.js";
import { Channel } from "../socket.js";
import { setUpPlayTogether } from "../play-together.js";
import { $, formatTime, h, modeName, playerLink, pluralize, replace } from "../util.js";

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
    replace(box, h("p", { class: "empty" }, "The daily deals are not available right now."));
    return;
  }
  replace(box,
    h("p", { class: "muted" }, `Deals of ${data.date} (UTC). The first attempt counts; later ones are practice.`),
    ...data.deals.map((deal) => {
      const label = `Daily · draw ${deal.draw === 3 ? "three" : "one"}`;
      const actions = [];
      if (deal.ranked_game) {
        actions.push(h("a", { class: "button", href: `/games/${deal.ranked_game}/` }, "Your attempt"));
      }
      const start = h("button", { class: `button ${deal.attempted ? "" : "primary"}`, type: "button" },
        deal.attempted ? "Practice" : "Play");
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
      actions.push(h("a", { href: `/leaderboards/?tab=daily&draw=${deal.draw}&date=${data.date}` }, "Board"));
      const status = h("p", { class: "field-error", role: "alert" });
      return h("div", { class: "daily-deal" },
        h("div", {}, h("strong", {}, label), h("div", { class: "meta muted" }, deal.attempted ? "Attempted" : "Not played yet")),
        h("div", { class: "inline" }, actions), status);
    }));
}

function watchers(n) {
  return n ? ` · ${pluralize(n, "spectator")}` : "";
}

function showLobby(data) {
  const races = data.races || [];
  const games = data.games || [];
  const top = data.top || [];
  replace($("#top-games"), top.length
    ? h("ol", { class: "list", "data-testid": "top-games" }, top.map((pick) => h("li", {},
      h("div", {},
        h("strong", {}, pick.kind === "race" ? `Race: ${pick.title}` : pick.title), " ",
        pick.kind === "race" && pick.closeness >= 0.9 ? h("span", { class: "tag live" }, "close") : null,
        h("div", { class: "meta" }, `${modeName(pick.draw, pick.scoring)} · rating ${pick.rating}${watchers(pick.watchers)}`
          + (pick.kind === "race" ? ` · ${pick.players.map((p) => `${p.player} ${p.foundation_count}/52`).join(", ")}` : ` · ${pick.foundation_count}/52 home`))),
      h("a", { class: "button small primary", href: pick.watch }, "Watch"))))
    : h("p", { class: "empty" }, "Nothing to watch right now."));
  replace($("#open-races"), races.length
    ? h("ul", { class: "list", "data-testid": "races" }, races.map((race) => h("li", {},
      h("div", {},
        h("strong", {}, `${race.host}'s race`), " ",
        h("span", { class: `tag ${race.phase === "open" ? "" : "live"}` }, race.phase), " ",
        race.open_boards ? h("span", { class: "tag", "data-testid": "open-boards",
          title: "Every card is shown live to everyone" }, "open boards") : null, " ",
        race.rated === false ? h("span", { class: "tag", "data-testid": "unrated",
          title: "The result changes no rating" }, "unrated") : null,
        h("div", { class: "meta" }, `${modeName(race.draw, race.scoring)} · ${race.players}/${race.max_players} players${race.full ? " (full)" : ""} · ${formatTime(race.time_limit)}${watchers(race.watchers)}`)),
      h("a", { class: "button small", href: `/races/${race.id}/` }, race.phase === "open" && !race.full ? "Join" : "Watch"))))
    : h("p", { class: "empty" }, "No open races. Open one!"));
  replace($("#live-games"), games.length
    ? h("ul", { class: "list", "data-testid": "live-games" }, games.map((game) => h("li", { "data-game": game.id },
      h("div", {},
        game.owner ? h("strong", {}, game.owner) : h("span", { class: "muted" }, "A guest"),
        h("div", { class: "meta" }, `${modeName(game.draw, game.scoring)} · ${pluralize(game.moves, "move")} · ${game.foundation_count}/52 home${watchers(game.watchers)}`)),
      h("a", { class: "button small", href: `/watch/${game.id}/` }, "Watch"))))
    : h("p", { class: "empty" }, "Nobody is playing in public right now."));
}

async function myGames() {
  try {
    const page = await get("/api/games/?status=live&limit=10");
    const games = page.results || [];
    if (!games.length) return;
    $("#mine-panel").hidden = false;
    replace($("#my-games"), h("ul", { class: "list" }, games.map((game) => h("li", {},
      h("div", {}, h("strong", {}, modeName(game.draw, game.scoring)),
        h("div", { class: "meta" }, `${pluralize(game.moves, "move")} · ${game.foundation_count}/52 home`)),
      h("a", { class: "button small", href: `/games/${game.id}/` }, "Resume")))));
  } catch { /* no games */ }
}

async function main() {
  try { user = await currentUser(); } catch { user = null; }
  if (!user) {
    const summary = $("#new-race-box summary");
    summary.textContent = "Open a race (log in first)";
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
