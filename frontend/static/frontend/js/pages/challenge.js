// One challenge: the invited player (or anyone, for a link) accepts or declines; the
// challenger shares the link and is taken to the race the moment it is accepted.
import { ApiError, currentUser, get, post } from "../api.js";
import { challengeUrl } from "../play-together.js";
import { PlayerChannel } from "../player-channel.js";
import { gettext, interpolate, interpolateParts } from "../i18n.js";
import { $, copyText, formatTime, h, modeName, playerLink, ratedText, replace } from "../util.js";

const challengeId = document.body.dataset.challengeId;
const box = $("#challenge");
const error = $("#challenge-error");
let me = null;

function expiresIn(c) {
  return Math.max(0, Math.round((Date.parse(c.expires_at) - Date.now()) / 1000));
}

function action(label, kind, path) {
  const b = h("button", { class: `button ${kind}`, type: "button" }, label);
  b.addEventListener("click", async () => {
    b.disabled = true;
    error.textContent = "";
    try {
      const answer = await post(path);
      if (answer.race) location.assign(`/races/${answer.race}/`);
      else show(answer);
    } catch (err) { error.textContent = err.detail || String(err); b.disabled = false; }
  });
  return b;
}

function show(c) {
  // Translators: a challenge's terms: "Draw one · Normal · rated · 5:00 on the clock".
  const terms = h("p", { class: "meta" }, interpolate(gettext("%(mode)s · %(rated)s · %(time)s on the clock"),
    { mode: modeName(c.draw, c.scoring), rated: ratedText(c.rated), time: formatTime(c.time_limit) }));
  const mine = me && me.username === c.challenger;
  const forMe = me && !mine && (c.challenged === null || c.challenged === me.username);
  const lines = [h("p", {}, c.challenged
    ? interpolateParts(gettext("%(challenger)s challenges %(challenged)s to a race."),
      { challenger: playerLink(c.challenger), challenged: playerLink(c.challenged) })
    : interpolateParts(gettext("%(challenger)s challenges anyone with this link to a race."), { challenger: playerLink(c.challenger) })),
  terms];
  const ended = {
    accepted: gettext("This challenge has been accepted."),
    declined: gettext("This challenge has been declined."),
    cancelled: gettext("This challenge has been cancelled."),
    expired: gettext("This challenge has expired."),
  };
  if (c.status === "accepted" && c.race) {
    lines.push(h("p", {}, interpolateParts(gettext("Accepted: %(link)s"),
      { link: h("a", { href: `/races/${c.race}/` }, gettext("to the race")) })));
  } else if (c.status !== "pending") {
    lines.push(h("p", { "data-testid": "challenge-status" },
      ended[c.status] || interpolate(gettext("This challenge has been %(status)s."), { status: c.status })));
  } else if (mine) {
    const url = challengeUrl(c.id);
    lines.push(h("p", {}, c.challenged ? interpolate(gettext("Waiting for %(name)s to answer."), { name: c.challenged })
      : gettext("Send this link to whoever you want to race:")),
    h("div", { class: "inline" }, h("input", { readonly: true, value: url, "aria-label": gettext("Challenge link"), class: "code-input", "data-testid": "challenge-link" }),
      h("button", { class: "button", type: "button", onclick: () => copyText(url) }, gettext("Copy link"))),
    h("p", { class: "muted" }, interpolate(gettext("Expires in %(time)s. You go to the race as soon as it is accepted."),
      { time: formatTime(expiresIn(c)) })),
    h("div", { class: "inline" }, action(gettext("Cancel challenge"), "ghost", `/api/challenges/${c.id}/cancel`)));
  } else if (!me) {
    lines.push(h("a", { class: "button primary", href: `/login/?next=${encodeURIComponent(location.pathname)}` }, gettext("Log in to accept")));
  } else if (forMe) {
    lines.push(h("div", { class: "inline" }, action(gettext("Accept"), "primary", `/api/challenges/${c.id}/accept`),
      c.challenged ? action(gettext("Decline"), "ghost", `/api/challenges/${c.id}/decline`) : null),
    h("p", { class: "muted" }, interpolate(gettext("Expires in %(time)s."), { time: formatTime(expiresIn(c)) })));
  } else {
    lines.push(h("p", {}, gettext("This challenge is for another player.")));
  }
  replace(box, lines);
}

async function load() {
  try {
    show(await get(`/api/challenges/${challengeId}/`));
  } catch (err) {
    replace(box, h("p", { class: "empty" }, err instanceof ApiError && err.status === 404 ? gettext("There is no such challenge.")
      : gettext("The challenge could not be loaded.")));
  }
}

async function main() {
  try { me = await currentUser(); } catch { me = null; }
  await load();
  // Signed in: hear when it is accepted (the challenger goes to the race) or answered.
  if (me) new PlayerChannel({ onChallenges: load, onRace: (raceId) => location.assign(`/races/${raceId}/`) });
}

main();
