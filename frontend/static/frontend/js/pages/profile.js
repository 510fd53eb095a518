// A player's profile: totals, statistics by mode, and charts (score history, Vegas
// balance over time, win rate by mode, race rating).
import { ApiError, currentUser, get, getOptional, post } from "../api.js";
import { barChart, lineChart } from "../charts.js";
import { formatNumber, formatPercent, gettext, interpolate, interpolateParts, pgettext } from "../i18n.js";
import { $, formatBalance, formatDate, formatScore, formatTime, h, modeName, replace } from "../util.js";

const name = document.body.dataset.player;

async function main() {
  let profile;
  try {
    profile = await get(`/api/players/${encodeURIComponent(name)}`);
  } catch (err) {
    // One clear sentence instead of empty panels.
    const missing = err instanceof ApiError && err.status === 404;
    $("#player-name").textContent = missing ? gettext("No such player") : name;
    document.title = `${missing ? gettext("No such player") : name} · Klondike`;
    for (const el of document.querySelectorAll(".profile > section, .profile .charts, #totals")) el.hidden = true;
    replace($("#joined"), missing ? interpolateParts(gettext("There is no player called %(name)s. %(link)s"), {
      name: h("strong", {}, name), link: h("a", { href: "/leaderboards/" }, gettext("Find players on the leaderboards")),
    }) : gettext("The profile could not be loaded right now."));
    $("#joined").dataset.testid = "profile-missing";
    return;
  }
  $("#player-name").textContent = profile.username;
  document.title = `${profile.username} · Klondike`;
  $("#joined").textContent = interpolate(gettext("Playing since %(date)s"), { date: formatDate(profile.date_joined) });
  challengeButton(profile.username);
  // The win rate is over games played to an end; abandoned ones are shown apart.
  const rate = profile.finished ? profile.wins / profile.finished : 0;
  replace($("#totals"),
    h("div", {}, h("dt", {}, gettext("Games finished")), h("dd", {}, formatNumber(profile.finished ?? 0))),
    h("div", {}, h("dt", {}, gettext("Wins")), h("dd", {}, formatNumber(profile.wins ?? 0))),
    h("div", {}, h("dt", {}, gettext("Win rate")), h("dd", {}, formatPercent(rate))),
    h("div", {}, h("dt", {}, pgettext("games", "Abandoned")), h("dd", { "data-testid": "abandoned" }, formatNumber(profile.abandoned ?? 0))));

  let stats = null;
  try { stats = await getOptional(`/api/players/${encodeURIComponent(name)}/stats`); } catch { stats = null; }
  const modes = stats?.modes || [];
  // Translators: the statistics table: its name for screen readers, then its column headers.
  replace($("#modes"), modes.length ? h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": gettext("Statistics by mode") }, h("table", {},
    h("thead", {}, h("tr", {}, [gettext("Mode"), gettext("Finished"), gettext("Wins"), gettext("Win rate"), gettext("Streak"),
      gettext("Best streak"), gettext("Best time"), gettext("Best score"), pgettext("games", "Abandoned")]
      .map((t, i) => h("th", { scope: "col", class: i ? "num" : "" }, t)))),
    h("tbody", {}, modes.map((m) => h("tr", {},
      h("th", { scope: "row" }, modeName(m.draw, m.scoring)),
      h("td", { class: "num" }, formatNumber(m.games ?? 0)), h("td", { class: "num" }, formatNumber(m.wins ?? 0)),
      h("td", { class: "num" }, formatPercent(m.win_rate || 0)),
      h("td", { class: "num" }, formatNumber(m.current_streak ?? 0)), h("td", { class: "num" }, formatNumber(m.best_streak ?? 0)),
      h("td", { class: "num" }, m.best_seconds === null ? "–" : formatTime(m.best_seconds)),
      h("td", { class: "num" }, m.best_score === null ? "–" : formatScore(m.best_score, m.scoring)),
      h("td", { class: "num" }, formatNumber(m.abandoned ?? 0)))))))
    : h("p", { class: "empty" }, stats ? gettext("No finished games yet.") : gettext("Statistics are not available right now.")));

  const at = (value) => new Date(value);
  const scores = (stats?.score_history || []).filter((p) => p.scoring !== "vegas");
  lineChart($("#chart-score"), scores.map((p) => ({ x: at(p.at), y: p.score })),
    { title: gettext("Score of each Normal game over time"), emptyText: gettext("No scored games yet.") });
  lineChart($("#chart-balance"), (stats?.balance_history || []).map((p) => ({ x: at(p.at), y: p.balance })),
    { title: gettext("Vegas balance over time"), format: formatBalance, zero: true, emptyText: gettext("No Vegas games yet.") });
  barChart($("#chart-winrate"), modes.filter((m) => m.games > 0).map((m) => ({
    label: modeName(m.draw, m.scoring), value: m.win_rate || 0,
    // Translators: a bar of the win-rate chart: "42% of 12" (games).
    text: interpolate(gettext("%(rate)s of %(games)s"), { rate: formatPercent(m.win_rate || 0), games: formatNumber(m.games) }) })),
  { title: gettext("Win rate by mode"), max: 1, emptyText: gettext("No games yet.") });
  lineChart($("#chart-rating"), (stats?.rating_history || []).map((p) => ({ x: at(p.at), y: Math.round(p.rating) })),
    { title: gettext("Race rating over time"), emptyText: gettext("No races yet."), area: false });
}

/** Another player's profile: challenge them to a race (the challenge page waits for
 * their answer). */
async function challengeButton(username) {
  let me = null;
  try { me = await currentUser(); } catch { me = null; }
  if (!me || me.username === username) return;
  const button = h("button", { class: "button primary", type: "button", "data-testid": "challenge" }, gettext("Challenge to a race"));
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
