// Sign up and log in: the session cookie is set by the API; then back to where we were.
import { ApiError, post } from "../api.js";
import { gettext } from "../i18n.js";
import { $ } from "../util.js";

const form = $("#auth-form");
const error = $("#auth-error");
const kind = form.dataset.kind;

function nextUrl() {
  const next = new URLSearchParams(location.search).get("next");
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  error.textContent = "";
  const data = Object.fromEntries(new FormData(form));
  // The API takes a name exactly as sent; a space typed around it is not part of it.
  data.username = (data.username || "").trim();
  if (!data.username || !data.password) {
    error.textContent = gettext("Enter a username and a password.");
    (data.username ? $("#password") : $("#username")).focus();
    return;
  }
  if (kind === "signup" && !data.email) delete data.email;
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const codeStep = $("#code-step");  // on the log-in page only
    if (codeStep && !codeStep.hidden) {
      // Two-factor sign-in: the password was right; now the code.
      await post("/api/accounts/login/two-factor", { code: (data.code || "").trim() });
      location.assign(nextUrl());
      return;
    }
    delete data.code;
    const answer = await post(`/api/accounts/${kind}`, data);
    if (answer?.two_factor_required) {
      $("#code-step").hidden = false;
      $("#username").readOnly = $("#password").readOnly = true;
      $("#code").focus();
      error.textContent = "";
      button.disabled = false;
      return;
    }
    location.assign(nextUrl());
  } catch (err) {
    error.textContent = err instanceof ApiError ? err.detail : String(err);
    const field = err.code === "username_taken" ? "#username" : err.code === "weak_password" ? "#password" : null;
    if (field) $(field).setAttribute("aria-invalid", "true");
    button.disabled = false;
  }
});
