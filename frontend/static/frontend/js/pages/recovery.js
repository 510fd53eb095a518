// A forgotten password (ask for a link; choose a new password with it) and an email
// address's verification link. The links come by mail; the pages post them to the API.
import { ApiError, post } from "../api.js";
import { gettext } from "../i18n.js";
import { $, h, replace } from "../util.js";

const page = document.body.dataset.recovery;
// The mailed link's secrets ride in the fragment, which the browser never sends.
const link = new URLSearchParams(location.hash.slice(1));
const form = $("#recovery-form");
const error = $("#recovery-error");
const done = $("#recovery-done");

function finish(...text) {
  if (form) form.hidden = true;
  replace(done, ...text);
  done.hidden = false;
}

function failed(err) {
  error.textContent = err instanceof ApiError ? err.detail : String(err);
}

async function submit(event) {
  event.preventDefault();
  error.textContent = "";
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    if (page === "forgot") {
      const email = form.email.value.trim();
      if (!email) throw new Error(gettext("Enter your email address."));
      finish((await post("/api/accounts/password-reset", { email })).detail, ".");
    } else {
      const [uid, token] = [link.get("uid") || "", link.get("token") || ""];
      const answer = await post("/api/accounts/password-reset/confirm", {
        uid, token, new_password: form.new_password.value, keep_tokens: form.keep_tokens.checked,
      });
      finish(answer.detail, ". ", h("a", { href: "/login/" }, gettext("Log in")));
    }
  } catch (err) {
    failed(err);
  } finally {
    button.disabled = false;
  }
}

if (page === "verify") {
  post("/api/accounts/email/verify", { token: link.get("token") || "" })
    .then((answer) => finish(answer.detail, ". ", h("a", { href: "/account/" }, gettext("Your account"))))
    .catch((err) => { done.hidden = true; failed(err); });
} else {
  form.addEventListener("submit", submit);
}
