// "Race someone now" and challenges on the home page: the quick-match queue and the
// player's challenges over their own socket (player-channel.js), challenges made
// over REST. Guests are sent to log in first.
import { post } from "./api.js";
import { formatNumber, gettext, interpolate, interpolateParts } from "./i18n.js";
import { PlayerChannel } from "./player-channel.js";
import { $, copyText, formatTime, h, modeName, playerLink, ratedText, replace, toast } from "./util.js";

export function challengeUrl(id) {
  return `${location.origin}/challenges/${id}/`;
}

function describe(c) {
  return `${modeName(c.draw, c.scoring)} · ${ratedText(c.rated)} · ${formatTime(c.time_limit)}`;
}

export function setUpPlayTogether(user) {
  const form = $("#race-now");
  const status = $("#queue-status");
  const error = $("#race-now-error");
  const cancelButton = $("#cancel-queue");
  const submit = form.querySelector("button[type=submit]");
  const challengeForm = $("#challenge-form");
  if (!user) {
    const login = () => location.assign(`/login/?next=${encodeURIComponent("/")}`);
    form.addEventListener("submit", (event) => { event.preventDefault(); login(); });
    challengeForm.addEventListener("submit", (event) => { event.preventDefault(); login(); });
    submit.textContent = gettext("Log in to race");
    return;
  }
  let waitingSince = null;
  let timer = null;
  const showQueue = (queue) => {
    const waiting = queue.state === "waiting";
    submit.hidden = waiting;
    cancelButton.hidden = !waiting;
    clearInterval(timer);
    if (!waiting) { status.textContent = ""; waitingSince = null; return; }
    error.textContent = "";
    waitingSince = Date.now() - queue.waited * 1000;
    const show = () => {
      const seconds = Math.floor((Date.now() - waitingSince) / 1000);
      // Translators: "s": seconds waited so far.
      status.textContent = interpolate(gettext("Looking for an opponent (%(mode)s, your rating %(rating)s)… %(seconds)s s"),
        { mode: modeName(queue.draw, queue.scoring), rating: formatNumber(Math.round(queue.rating)), seconds: formatNumber(seconds) });
    };
    show();
    timer = setInterval(show, 1000);
  };
  const channel = new PlayerChannel({
    onQueue: showQueue,
    onChallenges: (list) => showChallenges(list),
    onRace: (raceId) => { status.textContent = gettext("Opponent found: to the race!"); location.assign(`/races/${raceId}/`); },
    onError: (message) => { error.textContent = message.detail || message.error; showQueue({ state: "idle" }); },
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    error.textContent = "";
    if (!channel.queue(Number(form.elements.draw.value), form.elements.scoring.value)) {
      error.textContent = gettext("Not connected yet: try again in a moment.");
    }
  });
  cancelButton.addEventListener("click", () => { channel.cancel(); });

  challengeForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const f = challengeForm.elements;
    const problem = challengeForm.querySelector(".field-error");
    problem.textContent = "";
    const body = { draw: Number(f.draw.value), scoring: f.scoring.value, rated: f.rated.checked,
      time_limit: Math.round(Number(f.minutes.value) * 60) };
    if (f.username.value.trim()) body.username = f.username.value.trim();
    try {
      const made = await post("/api/challenges/", body);
      f.username.value = "";
      if (!made.challenged) location.assign(`/challenges/${made.id}/`);
      else toast(interpolate(gettext("Challenge sent to %(name)s."), { name: made.challenged }), "success");
    } catch (err) {
      problem.textContent = err.detail || String(err);
    }
  });

  function showChallenges({ received = [], sent = [] }) {
    const act = (label, kind, path) => {
      const b = h("button", { class: `button small ${kind}`, type: "button" }, label);
      b.addEventListener("click", async () => {
        b.disabled = true;
        try {
          const answer = await post(path);
          if (answer.race) location.assign(`/races/${answer.race}/`);
        } catch (err) { toast(err.detail || String(err), "error"); b.disabled = false; }
      });
      return b;
    };
    replace($("#challenges"),
      received.length ? h("h3", {}, gettext("Challenges for you")) : null,
      received.length ? h("ul", { class: "list", "data-testid": "challenges-received" }, received.map((c) => h("li", {},
        h("div", {}, interpolateParts(gettext("%(name)s challenges you"), { name: playerLink(c.challenger) }),
          h("div", { class: "meta" }, describe(c))),
        h("div", { class: "inline" }, act(gettext("Accept"), "primary", `/api/challenges/${c.id}/accept`),
          act(gettext("Decline"), "ghost", `/api/challenges/${c.id}/decline`))))) : null,
      sent.length ? h("h3", {}, gettext("Your challenges")) : null,
      sent.length ? h("ul", { class: "list", "data-testid": "challenges-sent" }, sent.map((c) => h("li", {},
        h("div", {}, c.challenged ? interpolateParts(gettext("To %(name)s"), { name: playerLink(c.challenged) })
          : h("a", { href: `/challenges/${c.id}/` }, gettext("Challenge link")),
        h("div", { class: "meta" }, describe(c))),
        h("div", { class: "inline" },
          c.challenged ? null : h("button", { class: "button small", type: "button", onclick: () => copyText(challengeUrl(c.id)) }, gettext("Copy link")),
          // Translators: a button: withdraw a challenge you sent.
          act(gettext("Cancel"), "ghost", `/api/challenges/${c.id}/cancel`))))) : null);
  }
}
