// The account page: who you are, where you are signed in (sign any other session out),
// and your personal access tokens (make, list, revoke).
// The page's requests go with the session: a token cannot manage the account.
import { ApiError, api, currentUser, del, get, post } from "../api.js";
import { $, h, replace, toast } from "../util.js";

const list = $("#tokens");
const form = $("#token-form");
const error = $("#token-error");

function when(iso) {
  return iso ? new Date(iso).toLocaleString() : "–";
}

function expired(token) {
  return token.expires_at && new Date(token.expires_at) <= new Date();
}

async function revoke(token, button) {
  if (!confirm(`Revoke the token "${token.name}"? Programs using it stop working at once.`)) return;
  button.disabled = true;
  try {
    await del(`/api/accounts/tokens/${encodeURIComponent(token.id)}`);
    toast(`Token "${token.name}" revoked`);
    await show();
  } catch (err) {
    button.disabled = false;
    toast(err instanceof ApiError ? err.detail : String(err), "error");
  }
}

function row(token) {
  const button = h("button", { class: "button small danger", type: "button", "data-testid": "revoke" }, "Revoke");
  button.addEventListener("click", () => revoke(token, button));
  return h("tr", { dataset: { token: token.id } },
    h("td", {}, token.name, token.legacy ? h("span", { class: "tag", title: "made before tokens were "
      + "hashed: revoke it and make a new one" }, "legacy") : null),
    h("td", {}, h("code", {}, `${token.id}…`)),
    h("td", {}, token.scope),
    h("td", {}, when(token.created)),
    h("td", { class: expired(token) ? "danger" : "" }, expired(token) ? "expired" : when(token.expires_at)),
    h("td", {}, when(token.last_used_at)),
    h("td", {}, button));
}

async function show() {
  const tokens = await get("/api/accounts/tokens");
  if (!tokens.length) {
    replace(list, h("p", { class: "muted" }, "You have no access tokens."));
    return;
  }
  replace(list, h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Access tokens" }, h("table", {},
    h("thead", {}, h("tr", {}, ["Name", "Id", "Scope", "Made", "Expires", "Last used", ""].map(
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
    error.textContent = "Give the token a name, to tell it from the others.";
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
    toast("Copied");
  } catch {
    toast("Select the token and copy it yourself", "warn");
  }
});

// -- email and password ---------------------------------------------------------------

function showEmail(user) {
  const state = $("#email-state");
  if (!user.email) replace(state, "No address yet.");
  else replace(state, h("b", {}, user.email), user.email_verified ? " — verified" : " — not verified yet: "
    + "follow the link we mailed to it");
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
    toast(user.email ? `A link is on its way to ${user.email}` : "Address removed");
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
    error.textContent = "Enter your current password and a new one.";
    return;
  }
  try {
    const done = await post("/api/accounts/password", data);
    form.reset();
    toast(`Password changed; ${done.signed_out} other session(s) signed out, ${done.revoked_tokens} token(s) revoked`);
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
    ? `On: signing in needs a code from your app. ${state.recovery_codes_left} recovery codes left.`
    : "Off: your password alone signs you in.");
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
    toast("Two-factor sign-in is off");
    await showTwoFactor();
  } catch (err) { twoFactorFailed(err); }
});

// -- leaving --------------------------------------------------------------------------

$("#delete-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#delete-error").textContent = "";
  const password = $("#delete-password").value;
  if (!password) {
    $("#delete-error").textContent = "Enter your password to delete the account.";
    return;
  }
  if (!confirm("Delete your account for good?")) return;
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
    toast(`Signed out ${session.device}`);
    await showSessions();
  } catch (err) {
    button.disabled = false;
    toast(err instanceof ApiError ? err.detail : String(err), "error");
  }
}

function sessionRow(session) {
  let action = h("span", { class: "muted" }, "this browser");
  if (!session.current) {
    action = h("button", { class: "button small danger", type: "button", "data-testid": "sign-out" }, "Sign out");
    action.addEventListener("click", () => signOut(session, action));
  }
  return h("tr", { class: session.current ? "me" : "" },
    h("td", {}, session.device), h("td", {}, session.ip || "–"), h("td", {}, when(session.signed_in_at)),
    h("td", {}, when(session.last_seen_at)), h("td", {}, action));
}

async function showSessions() {
  const rows = await get("/api/accounts/sessions");
  $("#sign-out-others").disabled = rows.length < 2;
  replace(sessionList, h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Signed-in sessions" }, h("table", {},
    h("thead", {}, h("tr", {}, ["Device", "Address", "Signed in", "Last seen", ""].map(
      (title) => h("th", { scope: "col" }, title)))),
    h("tbody", {}, rows.map(sessionRow)))));
}

$("#sign-out-others").addEventListener("click", async (event) => {
  const button = event.currentTarget;
  button.disabled = true;
  try {
    const { signed_out: count } = await post("/api/accounts/sessions/sign-out-others");
    toast(count === 1 ? "Signed out 1 other session" : `Signed out ${count} other sessions`);
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
  replace($("#account-who"), "Signed in as ", h("b", {}, user.username));
  showEmail(user);
  await Promise.all([showSessions(), show(), showTwoFactor()]);
}

start();
