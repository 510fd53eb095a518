// The account page: who you are, where you are signed in (sign any other session out),
// and your personal access tokens (make, list, revoke).
// The page's requests go with the session: a token cannot manage the account.
import { ApiError, api, currentUser, del, get, post } from "../api.js";
import { formatNumber, gettext, interpolate, interpolateParts, ngettext } from "../i18n.js";
import { $, formatDate, h, replace, toast } from "../util.js";

const list = $("#tokens");
const form = $("#token-form");
const error = $("#token-error");

function when(iso) {
  return iso ? formatDate(iso, true) : "–";
}

function expired(token) {
  return token.expires_at && new Date(token.expires_at) <= new Date();
}

async function revoke(token, button) {
  if (!confirm(interpolate(gettext("Revoke the token \"%(name)s\"? Programs using it stop working at once."), { name: token.name }))) return;
  button.disabled = true;
  try {
    await del(`/api/accounts/tokens/${encodeURIComponent(token.id)}`);
    toast(interpolate(gettext("Token \"%(name)s\" revoked"), { name: token.name }));
    await show();
  } catch (err) {
    button.disabled = false;
    toast(err instanceof ApiError ? err.detail : String(err), "error");
  }
}

function row(token) {
  const button = h("button", { class: "button small danger", type: "button", "data-testid": "revoke" }, gettext("Revoke"));
  button.addEventListener("click", () => revoke(token, button));
  return h("tr", { dataset: { token: token.id } },
    h("td", {}, token.name, token.legacy ? h("span", { class: "tag",
      title: gettext("made before tokens were hashed: revoke it and make a new one") }, gettext("legacy")) : null),
    h("td", {}, h("code", {}, `${token.id}…`)),
    h("td", {}, token.scope),
    h("td", {}, when(token.created)),
    h("td", { class: expired(token) ? "danger" : "" }, expired(token) ? gettext("expired") : when(token.expires_at)),
    h("td", {}, when(token.last_used_at)),
    h("td", {}, button));
}

async function show() {
  const tokens = await get("/api/accounts/tokens");
  if (!tokens.length) {
    replace(list, h("p", { class: "muted" }, gettext("You have no access tokens.")));
    return;
  }
  // Translators: the access tokens' table: its name for screen readers, then its column headers.
  replace(list, h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": gettext("Access tokens") }, h("table", {},
    h("thead", {}, h("tr", {}, [gettext("Name"), gettext("Id"), gettext("Scope"), gettext("Made"), gettext("Expires"),
      gettext("Last used"), ""].map(
      (title) => h("th", { scope: "col" }, title)))),
    h("tbody", {}, tokens.map(row)))));
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  error.textContent = "";
  const data = Object.fromEntries(new FormData(form));
  data.name = (data.name || "").trim();
  data.expires_in_days = Number(data.expires_in_days);
  if (!data.name) {
    error.textContent = gettext("Give the token a name, to tell it from the others.");
    $("#token-name").focus();
    return;
  }
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const made = await post("/api/accounts/tokens", { ...data, ...proof() });
    $("#token-secret-value").textContent = made.token;
    $("#token-secret").hidden = false;
    form.reset();
    await show();
  } catch (err) {
    error.textContent = err instanceof ApiError ? err.detail : String(err);
  } finally {
    button.disabled = false;
  }
});

$("#token-copy").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("#token-secret-value").textContent);
    toast(gettext("Copied"));
  } catch {
    toast(gettext("Select the token and copy it yourself"), "warn");
  }
});

// -- email and password ---------------------------------------------------------------

function showEmail(user) {
  const state = $("#email-state");
  const email = h("b", {}, user.email);
  if (!user.email) replace(state, gettext("No address yet."));
  else if (user.email_verified) replace(state, interpolateParts(gettext("%(email)s — verified"), { email }));
  else replace(state, interpolateParts(gettext("%(email)s — not verified yet: follow the link we mailed to it"), { email }));
  $("#email-warning").hidden = Boolean(user.email && user.email_verified);
  $("#email-resend").hidden = !user.email || user.email_verified;
}

$("#email-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#email-error").textContent = "";
  try {
    const user = await api("PATCH", "/api/accounts/me", { email: $("#email-input").value.trim(), ...proof() });
    showEmail(user);
    $("#email-input").value = "";
    toast(user.email ? interpolate(gettext("A link is on its way to %(email)s"), { email: user.email }) : gettext("Address removed"));
  } catch (err) {
    $("#email-error").textContent = err instanceof ApiError ? err.detail : String(err);
  }
});

$("#email-resend").addEventListener("click", async () => {
  try {
    toast((await post("/api/accounts/email/verification")).detail);
  } catch (err) {
    toast(err instanceof ApiError ? err.detail : String(err), "error");
  }
});

$("#password-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const error = $("#password-error");
  error.textContent = "";
  const data = {
    current_password: form.current_password.value, new_password: form.new_password.value,
    keep_tokens: form.keep_tokens.checked,
  };
  if (!data.current_password || !data.new_password) {
    error.textContent = gettext("Enter your current password and a new one.");
    return;
  }
  try {
    const done = await post("/api/accounts/password", data);
    form.reset();
    const sessions = interpolate(ngettext("%(count)s other session signed out", "%(count)s other sessions signed out", done.signed_out),
      { count: formatNumber(done.signed_out) });
    const tokens = interpolate(ngettext("%(count)s token revoked", "%(count)s tokens revoked", done.revoked_tokens),
      { count: formatNumber(done.revoked_tokens) });
    // Translators: "Password changed; 2 other sessions signed out, 1 token revoked".
    toast(interpolate(gettext("Password changed; %(sessions)s, %(tokens)s"), { sessions, tokens }));
    await Promise.all([showSessions(), show()]);
  } catch (err) {
    error.textContent = err instanceof ApiError ? err.detail : String(err);
  }
});

// -- two-factor sign-in -------------------------------------------------------------

let twoFactorOn = false;

/** The password a sensitive action needs, and the code while two-factor sign-in is on. */
function proof() {
  const given = { password: $("#proof-password").value };
  if (twoFactorOn) given.code = $("#proof-code").value.trim();
  return given;
}

async function showTwoFactor() {
  const state = await get("/api/accounts/two-factor");
  twoFactorOn = state.enabled;
  replace($("#twofa-state"), state.enabled
    ? interpolate(ngettext("On: signing in needs a code from your app. %(count)s recovery code left.",
      "On: signing in needs a code from your app. %(count)s recovery codes left.", state.recovery_codes_left),
    { count: formatNumber(state.recovery_codes_left) })
    : gettext("Off: your password alone signs you in."));
  $("#twofa-start").hidden = state.enabled;
  $("#twofa-off").hidden = !state.enabled;
  $("#proof-code-note").hidden = $("#proof-code-field").hidden = !state.enabled;
}

function twoFactorFailed(err) {
  $("#twofa-error").textContent = err instanceof ApiError ? err.detail : String(err);
}

$("#twofa-start").addEventListener("click", async () => {
  $("#twofa-error").textContent = "";
  try {
    const setup = await post("/api/accounts/two-factor/setup", { password: $("#proof-password").value });
    $("#twofa-qr").src = setup.qr;
    $("#twofa-secret").textContent = setup.secret;
    $("#twofa-setup").hidden = false;
    $("#twofa-start").hidden = true;
    $("#twofa-code").focus();
  } catch (err) { twoFactorFailed(err); }
});

$("#twofa-confirm").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#twofa-error").textContent = "";
  try {
    const { recovery_codes: codes } = await post("/api/accounts/two-factor/confirm", { code: $("#twofa-code").value });
    $("#twofa-setup").hidden = true;
    replace($("#twofa-code-list"), codes.map((code) => h("li", {}, h("code", {}, code))));
    $("#twofa-codes").hidden = false;
    await showTwoFactor();
  } catch (err) { twoFactorFailed(err); }
});

$("#twofa-off").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  $("#twofa-error").textContent = "";
  try {
    await post("/api/accounts/two-factor/disable", {
      password: $("#twofa-off-password").value, code: $("#twofa-off-code").value.trim(),
    });
    form.reset();
    $("#twofa-codes").hidden = true;
    toast(gettext("Two-factor sign-in is off"));
    await showTwoFactor();
  } catch (err) { twoFactorFailed(err); }
});

// -- leaving --------------------------------------------------------------------------

$("#delete-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#delete-error").textContent = "";
  const password = $("#delete-password").value;
  if (!password) {
    $("#delete-error").textContent = gettext("Enter your password to delete the account.");
    return;
  }
  if (!confirm(gettext("Delete your account for good?"))) return;
  try {
    await post("/api/accounts/delete", { ...proof(), password });
    location.assign("/");
  } catch (err) {
    $("#delete-error").textContent = err instanceof ApiError ? err.detail : String(err);
  }
});

// -- sessions ---------------------------------------------------------------------

const sessionList = $("#sessions");

async function signOut(session, button) {
  button.disabled = true;
  try {
    await del(`/api/accounts/sessions/${encodeURIComponent(session.id)}`);
    toast(interpolate(gettext("Signed out %(device)s"), { device: session.device }));
    await showSessions();
  } catch (err) {
    button.disabled = false;
    toast(err instanceof ApiError ? err.detail : String(err), "error");
  }
}

function sessionRow(session) {
  let action = h("span", { class: "muted" }, gettext("this browser"));
  if (!session.current) {
    action = h("button", { class: "button small danger", type: "button", "data-testid": "sign-out" }, gettext("Sign out"));
    action.addEventListener("click", () => signOut(session, action));
  }
  return h("tr", { class: session.current ? "me" : "" },
    h("td", {}, session.device), h("td", {}, session.ip || "–"), h("td", {}, when(session.signed_in_at)),
    h("td", {}, when(session.last_seen_at)), h("td", {}, action));
}

async function showSessions() {
  const rows = await get("/api/accounts/sessions");
  $("#sign-out-others").disabled = rows.length < 2;
  // Translators: the sessions' table: its name for screen readers, then its column headers ("Address": IP address).
  replace(sessionList, h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": gettext("Signed-in sessions") }, h("table", {},
    h("thead", {}, h("tr", {}, [gettext("Device"), gettext("Address"), gettext("Signed in"), gettext("Last seen"), ""].map(
      (title) => h("th", { scope: "col" }, title)))),
    h("tbody", {}, rows.map(sessionRow)))));
}

$("#sign-out-others").addEventListener("click", async (event) => {
  const button = event.currentTarget;
  button.disabled = true;
  try {
    const { signed_out: count } = await post("/api/accounts/sessions/sign-out-others");
    toast(interpolate(ngettext("Signed out %(count)s other session", "Signed out %(count)s other sessions", count),
      { count: formatNumber(count) }));
  } catch (err) {
    toast(err instanceof ApiError ? err.detail : String(err), "error");
  }
  await showSessions();
});

async function start() {
  const user = await currentUser();
  if (!user) {
    location.assign(`/login/?next=${encodeURIComponent(location.pathname)}`);
    return;
  }
  replace($("#account-who"), interpolateParts(gettext("Signed in as %(name)s"), { name: h("b", {}, user.username) }));
  showEmail(user);
  await Promise.all([showSessions(), show(), showTwoFactor()]);
}

start();
