// Small DOM and formatting helpers. Text from the server always goes in as text
// nodes (never innerHTML), so a player's name cannot inject markup. Words go through
// i18n.js (gettext and friends), numbers through its formatNumber / formatDollars.

import { formatDollars, formatNumber, gettext, interpolate, language } from "./i18n.js";

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  el.removeAttribute("aria-busy");
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** Scores as the app shows them, in the page's number format: 625, 1,234; Vegas +$208,
 * $0, -$52 (in Italian and Spanish +208 $, 0 $, -52 $). */
export function formatScore(score, scoring) {
  if (score === null || score === undefined) return "–";
  if (scoring !== "vegas") return formatNumber(score);
  return formatDollars(score);
}

export function formatBalance(balance) {
  return formatScore(balance, "vegas");
}

export function formatTime(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds)) return "–";
  const s = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/** "Draw one · Normal", "Draw three · Vegas" (the game's mode, as the new-game form names it). */
export function modeName(draw, scoring) {
  const vegas = scoring === "vegas";
  if (draw === 3) return vegas ? gettext("Draw three · Vegas") : gettext("Draw three · Normal");
  return vegas ? gettext("Draw one · Vegas") : gettext("Draw one · Normal");
}

/** "rated" / "unrated", of a race or a challenge. */
export function ratedText(rated) {
  // Translators: of a race or a challenge: its result changes the players' ratings (or not).
  return rated ? gettext("rated") : gettext("unrated");
}

/** "12/52 home": cards on the foundations. */
export function homeText(count) {
  // Translators: cards on the foundations out of 52 ("home": put up on the foundations).
  return interpolate(gettext("%(count)s/52 home"), { count: formatNumber(count ?? 0) });
}

/** A date (and time) in the page's language. */
export function formatDate(value, withTime = false) {
  if (!value) return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return withTime ? date.toLocaleString(language) : date.toLocaleDateString(language);
}

let announceTimer = null;
/** Tell screen-reader users what happened (polite live region). */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  region.textContent = "";
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => { region.textContent = text; }, 30);
}

/** A short visible notice (errors are also announced assertively). */
export function toast(text, kind = "info", ms = 3500) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const item = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
  box.append(item);
  setTimeout(() => item.classList.add("leaving"), ms);
  setTimeout(() => item.remove(), ms + 400);
}

export function playerLink(name) {
  // Translators: in place of a player's name, a game played without an account.
  if (!name) return h("span", { class: "muted" }, gettext("guest"));
  // A deleted account's neutral name (it has a space: no account can) links nowhere.
  // The server stores it in English ("deleted player 4821"): shown in the page's language.
  if (name.startsWith("deleted player ")) {
    return h("span", { class: "muted" }, interpolate(gettext("deleted player %(number)s"),
      { number: name.slice("deleted player ".length) }));
  }
  return h("a", { href: `/players/${encodeURIComponent(name)}/` }, name);
}

/** A button that asks again in place ("Really give up?") before acting. */
export function confirmButton(button, question, action) {
  const label = button.textContent;
  let armed = null;
  button.addEventListener("click", () => {
    if (armed) {
      clearTimeout(armed);
      armed = null;
      button.textContent = label;
      button.classList.remove("armed");
      action();
      return;
    }
    button.textContent = question;
    button.classList.add("armed");
    announce(interpolate(gettext("%(question)s Press again to confirm."), { question }));
    armed = setTimeout(() => { armed = null; button.textContent = label; button.classList.remove("armed"); }, 4000);
  });
}

/** Copy text to the clipboard and say so (or say how to copy it by hand). */
export async function copyText(text, done = gettext("Copied.")) {
  try {
    await navigator.clipboard.writeText(text);
    toast(done, "success");
  } catch {
    toast(gettext("Copy did not work here: select the text and copy it."), "error");
  }
}
