// Leaderboards: the daily deal, Vegas cumulative balances, one deal, races.
import { ApiError, currentUser, get, getOptional, post } from "../api.js";
import { lineChart } from "../charts.js";
import { formatNumber, gettext, interpolate, interpolateParts, pgettext } from "../i18n.js";
import { $, $$, formatBalance, formatScore, formatTime, h, playerLink, replace, toast } from "../util.js";

const PAGE = 25;
const TABS = ["daily", "vegas", "deal", "races"];
const params = new URLSearchParams(location.search);
const state = {
  tab: TABS.includes(params.get("tab")) ? params.get("tab") : "daily",
  date: params.get("date") || new Date().toISOString().slice(0, 10),
  draw: params.get("draw") === "3" ? "3" : "1",
  code: params.get("code") || "",
  offset: Math.max(0, Number(params.get("offset")) || 0),
};
let me = null;

const STATUS = {
  won: pgettext("result", "Won"), live: pgettext("result", "Playing"), resigned: pgettext("result", "Gave up"),
  timed_out: pgettext("result", "Out of time"), abandoned: pgettext("result", "Abandoned"),
};

const number = (value) => (value === null || value === undefined ? "–" : formatNumber(value));

function columns(tab) {
  // Translators: column headers of the leaderboards' tables.
  const rank = [gettext("Rank"), (r) => number(r.rank), "num"];
  const player = [gettext("Player"), (r) => playerLink(r.player)];
  if (tab === "vegas") {
    return [rank, player, [gettext("Balance"), (r) => formatBalance(r.balance), "num"], [gettext("Games"), (r) => number(r.games), "num"]];
  }
  if (tab === "races") {
    return [rank, player,
      [gettext("Rating"), (r) => number(Math.round(r.rating)), "num"], ["±", (r) => number(Math.round(2 * r.rd)), "num"],
      [gettext("Races"), (r) => number(r.races), "num"]];
  }
  return [rank, player,
    [gettext("Result"), (r) => STATUS[r.status] || r.status], [gettext("Score"), (r) => formatScore(r.score, r.scoring), "num"],
    [gettext("Time"), (r) => (r.seconds === null || r.seconds === undefined ? "–" : formatTime(r.seconds)), "num"],
    [gettext("Moves"), (r) => number(r.moves), "num"],
    // Translators: a column header: cards put up on the foundations ("12/52").
    [gettext("Home"), (r) => `${number(r.foundation_count)}/52`, "num"],
    // A daily deal's results replay (and race as ghosts) once its day is over: its code shows then.
    ["", (r) => (r.game && r.status !== "live" && (tab !== "daily" || r.code_revealed) ? [h("a", { href: `/replays/${r.game}/` }, pgettext("link", "replay")), " · ",
      h("button", { class: "link-button", type: "button", "data-ghost": r.game }, gettext("race its ghost"))] : "")]];
}

function url() {
  const page = `offset=${state.offset}&limit=${PAGE}`;
  if (state.tab === "daily") return `/api/leaderboards/daily?date=${state.date}&draw=${state.draw}&${page}`;
  if (state.tab === "vegas") return `/api/leaderboards/vegas?${page}`;
  if (state.tab === "races") return `/api/leaderboards/races?${page}`;
  return state.code ? `/api/leaderboards/deals/${encodeURIComponent(state.code.trim())}?${page}` : null;
}

function filters() {
  const form = $("#filters");
  const items = [];
  if (state.tab === "daily") {
    items.push(h("label", {}, gettext("Day"), h("input", { type: "date", name: "date", value: state.date })));
    // Translators: a filter of the daily leaderboard: Draw one or Draw three.
    items.push(h("label", {}, pgettext("filter", "Draw"), h("select", { name: "draw" },
      h("option", { value: "1", selected: state.draw === "1" }, pgettext("draw", "One")),
      h("option", { value: "3", selected: state.draw === "3" }, pgettext("draw", "Three")))));
  } else if (state.tab === "deal") {
    items.push(h("label", {}, gettext("Deal code"), h("input", { name: "code", value: state.code, placeholder: "KL1-D1N-AAAAAAG", spellcheck: "false", autocomplete: "off" })));
    items.push(h("button", { class: "button", type: "submit" }, gettext("Show")));
  }
  replace(form, items);
  form.hidden = !items.length;
}

async function load() {
  for (const tab of $$("[role=tab]")) {
    const selected = tab.dataset.tab === state.tab;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
  $("#panel").setAttribute("aria-labelledby", `tab-${state.tab}`);
  const query = new URLSearchParams({ tab: state.tab });
  if (state.tab === "daily") { query.set("date", state.date); query.set("draw", state.draw); }
  if (state.tab === "deal" && state.code) query.set("code", state.code);
  if (state.offset) query.set("offset", String(state.offset));
  history.replaceState(null, "", `?${query}`);
  filters();
  replace($("#me-line"));
  const table = $("#table");
  table.setAttribute("aria-busy", "true");
  const target = url();
  if (!target) { replace(table, h("p", { class: "empty" }, gettext("Enter a deal code to see its results."))); replace($("#pager")); return; }
  let data = null;
  let error = null;
  try { data = await getOptional(target); } catch (err) { error = err; }
  if (error) {
    replace(table, h("p", { class: "field-error", role: "alert" }, error instanceof ApiError ? error.detail : String(error)));
    replace($("#pager"));
    return;
  }
  const rows = data?.results || [];
  if (!data) replace(table, h("p", { class: "empty" }, gettext("This leaderboard is not available yet.")));
  else if (!rows.length) replace(table, h("p", { class: "empty" }, gettext("No results yet.")));
  else {
    const cols = columns(state.tab);
    const scoring = data.scoring || "normal";
    replace(table,
      data.code ? h("p", { class: "muted" }, interpolateParts(gettext("Deal %(code)s"), { code: h("code", {}, data.code) })) : null,
      h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": gettext("Leaderboard") }, h("table", {},
        h("thead", {}, h("tr", {}, cols.map(([title, , cls]) => h("th", { scope: "col", class: cls || "" }, title)))),
        h("tbody", {}, rows.map((r) => h("tr", { class: me && r.player === me.username ? "me" : "" },
          cols.map(([, cell, cls]) => h("td", { class: cls || "" }, cell({ scoring, code_revealed: !!data.code, ...r })))))))));
  }
  pager(data?.count ?? 0);
  $("#vegas-note").hidden = state.tab !== "vegas";
  if (state.tab === "vegas" && me) vegasMe();
}

// "race its ghost": a new game on that deal, against that result's recorded moves.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-ghost]");
  if (!button) return;
  button.disabled = true;
  try {
    const game = await post("/api/games/", { ghost: button.dataset.ghost });
    location.assign(`/games/${game.id}/`);
  } catch (err) {
    button.disabled = false;
    toast(err.detail || String(err), "error");
  }
});

function pager(count) {
  const nav = $("#pager");
  if (count <= PAGE) { replace(nav); return; }
  const prev = h("button", { class: "button small", type: "button", disabled: state.offset === 0 }, gettext("Previous"));
  const next = h("button", { class: "button small", type: "button", disabled: state.offset + PAGE >= count }, gettext("Next"));
  prev.addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); load(); });
  next.addEventListener("click", () => { state.offset += PAGE; load(); });
  // Translators: the rows shown of a leaderboard: "26–50 of 132".
  replace(nav, prev, h("span", {}, interpolate(gettext("%(first)s–%(last)s of %(count)s"), {
    first: formatNumber(state.offset + 1), last: formatNumber(Math.min(count, state.offset + PAGE)), count: formatNumber(count),
  })), next);
}

async function vegasMe() {
  let mine = null;
  try { mine = await getOptional("/api/leaderboards/vegas/me"); } catch { return; }
  if (!mine) return;
  const chart = h("div", { class: "chart" });
  replace($("#me-line"),
    h("p", {}, interpolateParts(mine.rank ? gettext("Your balance: %(balance)s · rank %(rank)s")
      : gettext("Your balance: %(balance)s · not ranked yet"), { balance: h("strong", {}, formatBalance(mine.balance)), rank: formatNumber(mine.rank) })),
    chart);
  lineChart(chart, (mine.history || []).map((p) => ({ x: new Date(p.at), y: p.balance })),
    { title: gettext("Your Vegas balance over time"), format: formatBalance, zero: true, emptyText: gettext("Play a Vegas game to start your balance.") });
}

$("#filters").addEventListener("change", (e) => {
  if (e.target.name === "date") state.date = e.target.value;
  if (e.target.name === "draw") state.draw = e.target.value;
  if (e.target.name === "code") return;
  state.offset = 0;
  load();
});
$("#filters").addEventListener("submit", (e) => {
  e.preventDefault();
  state.code = e.target.elements.code?.value || "";
  state.offset = 0;
  load();
});

const tabs = $$("[role=tab]");
tabs.forEach((tab, i) => {
  tab.addEventListener("click", () => { state.tab = tab.dataset.tab; state.offset = 0; load(); });
  tab.addEventListener("keydown", (e) => {
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = tabs[(i + step + tabs.length) % tabs.length];
    next.focus();
    next.click();
  });
});

(async () => {
  try { me = await currentUser(); } catch { me = null; }
  load();
})();
