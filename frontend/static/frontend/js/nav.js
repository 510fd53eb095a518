// The header's account links: log in / sign up for guests, profile / account / log out
// for players.
import { currentUser, post } from "./api.js";
import { gettext } from "./i18n.js";
import { h, replace } from "./util.js";

async function render() {
  const box = document.getElementById("account");
  if (!box) return;
  let user = null;
  try { user = await currentUser(); } catch { return; }
  if (!user) return;
  const logout = h("button", { class: "button small ghost", type: "button", "data-testid": "logout" }, gettext("Log out"));
  logout.addEventListener("click", async () => {
    logout.disabled = true;
    try { await post("/api/accounts/logout"); } finally { location.assign("/"); }
  });
  replace(box,
    h("a", { href: `/players/${encodeURIComponent(user.username)}/`, class: "me", "data-testid": "me" },
      h("span", { class: "avatar", "aria-hidden": "true" }, user.username.slice(0, 1).toUpperCase()), user.username),
    h("a", { href: "/account/", class: "button small ghost", "data-testid": "account" }, gettext("Account")),
    logout);
}

render();
