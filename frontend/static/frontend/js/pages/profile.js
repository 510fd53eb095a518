// A player's profile: totals, statistics by mode, and charts (score history, Vegas
// balance over time, win rate by mode, race rating).
import { ApiError, currentUser, get, getOptional, post } from "../api.js";
import { barChart, lineChart } from "../charts.js";
import { $, formatBalance, formatDate, formatScore, formatTime, h, modeName, replace } from "../util.js";

const name = document.body.dataset.player;

async function main() {
  let profile;
  try {
    profile = await get(`/api/players/${encodeURIComponent(name)}`);
  } catch (err) {
    // One clear sentence instead of empty panels.
    const missing = err instanceof ApiError && err.status === 404;
    $("#player-name").textContent = missing ? "No such player" : name;
    document.title = `${missing ? "No such player" : name} · Klondike`;
    for (const el of document.querySelectorAll(".profile > section, .profile .charts, #totals")) el.hidden = true;
    replace($("#joined"), missing ? ["There is no player called ", h("strong", {}, name), ". ",
      h("a", { href: "/leaderboards/" }, "Find players on the leaderboards")] : "The profile could not be loaded right now.");
    $("#joined").dataset.testid = "profile-missing";
    return;
  }
  $("#player-name").textContent = profile.username;
  document.title = `${profile.username} · Klondike`;
  $("#joined").textContent = `Playing since ${formatDate(profile.date_joined)}`;
  challengeButton(profile.username);
  // The win rate is over games played to an end; abandoned ones are shown apart.
  const rate = profile.finished ? Math.round((100 * profile.wins) / profile.finished) : 0;
  replace($("#totals"),
    h("div", {}, h("dt", {}, "Games finished"), h("dd", {}, profile.finished)),
    h("div", {}, h("dt", {}, "Wins"), h("dd", {}, profile.wins)),
    h("div", {}, h("dt", {}, "Win rate"), h("dd", {}, `${rate}%`)),
    h("div", {}, h("dt", {}, "Abandoned"), h("dd", { "data-testid": "abandoned" }, profile.abandoned)));

  let stats = null;
  try { stats = await getOptional(`/api/players/${encodeURIComponent(name)}/stats`); } catch { stats = null; }
  const modes = stats?.modes || [];
  replace($("#modes"), modes.length ? h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Statistics by mode" }, h("table", {},
    h("thead", {}, h("tr", {}, ["Mode", "Finished", "Wins", "Win rate", "Streak", "Best streak", "Best time", "Best score", "Abandoned"]
      .map((t, i) => h("th", { scope: "col", class: i ? "num" : "" }, t)))),
    h("tbody", {}, modes.map((m) => h("tr", {},
      h("th", { scope: "row" }, modeName(m.draw, m.scoring)),
      h("td", { class: "num" }, m.games), h("td", { class: "num" }, m.wins),
      h("td", { class: "num" }, `${Math.round((m.win_rate || 0) * 100)}%`),
      h("td", { class: "num" }, m.current_streak), h("td", { class: "num" }, m.best_streak),
      h("td", { class: "num" }, m.best_seconds === null ? "–" : formatTime(m.best_seconds)),
      h("td", { class: "num" }, m.best_score === null ? "–" : formatScore(m.best_score, m.scoring)),
      h("td", { class: "num" }, m.abandoned ?? 0))))))
    : h("p", { class: "empty" }, stats ? "No finished games yet." : "Statistics are not available right now."));

  const at = (value) => new Date(value);
  const scores = (stats?.score_history || []).filter((p) => p.scoring !== "vegas");
  lineChart($("#chart-score"), scores.map((p) => ({ x: at(p.at), y: p.score })),
    { title: "Score of each Normal game over time", emptyText: "No scored games yet." });
  lineChart($("#chart-balance"), (stats?.balance_history || []).map((p) => ({ x: at(p.at), y: p.balance })),
    { title: "Vegas balance over time", format: formatBalance, zero: true, emptyText: "No Vegas games yet." });
  barChart($("#chart-winrate"), modes.filter((m) => m.games > 0).map((m) => ({
    label: modeName(m.draw, m.scoring), value: m.win_rate || 0,
    text: `${Math.round((m.win_rate || 0) * 100)}% of ${m.games}` })),
  { title: "Win rate by mode", max: 1, emptyText: "No games yet." });
  lineChart($("#chart-rating"), (stats?.rating_history || []).map((p) => ({ x: at(p.at), y: Math.round(p.rating) })),
    { title: "Race rating over time", emptyText: "No races yet.", area: false });
}

/** Another player's profile: challenge them to a race (the challenge page waits for
 * their answer). */
async function challengeButton(username) {
  let me = null;
  try { me = await currentUser(); } catch { me = null; }
  if (!me || me.username === username) return;
  const button = h("button", { class: "button primary", type: "button", "data-testid": "challenge" }, "Challenge to a race");
  const problem = h("p", { class: "field-error", role: "alert" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const made = await post("/api/challenges/", { username });
      location.assign(`/challenges/${made.id}/`);
    } catch (err) { problem.textContent = err.detail || String(err); button.disabled = false; }
  });
  $("#profile-actions").replaceChildren(button, problem);
}

main();
