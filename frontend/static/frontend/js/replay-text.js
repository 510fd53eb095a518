// A move of the log in words, for move lists ("9♠ to column 4", "Draw").
import { cardLabel, cardShort } from "./cards.js";
import { formatNumber, gettext, interpolateParts, pgettext } from "./i18n.js";
import { h } from "./util.js";

/** "%(card)s to column 4" and the like, as parts: the card goes in by the caller (a text or nodes). */
function moveTo(to, card) {
  if (to === "foundation" || /^f[SHDC]$/.test(to)) return interpolateParts(gettext("%(card)s to the foundation"), { card });
  if (/^t[1-7]$/.test(to)) {
    return interpolateParts(gettext("%(card)s to column %(column)s"), { card, column: formatNumber(Number(to.slice(1))) });
  }
  return interpolateParts(gettext("%(card)s to %(place)s"), { card, place: to });
}

/** "%(move)s, turns up %(card)s", as parts. */
function turnsUp(move, card) {
  // Translators: a move of a replay's list, then the face-down card it turned up: "9♠ to column 4, turns up K♥".
  return interpolateParts(gettext("%(move)s, turns up %(card)s"), { move, card });
}

function words(parts) { return parts.flat(Infinity).join(""); }

export function moveText(move, flipped) {
  let text;
  switch (move.type) {
    case "draw": text = pgettext("move", "Draw"); break;
    case "recycle": text = pgettext("move", "Turn the waste over"); break;
    case "undo": text = pgettext("move", "Undo"); break;
    case "resign": text = pgettext("move", "Gave up"); break;
    case "timeout": text = pgettext("move", "Out of time"); break;
    case "abandon": text = pgettext("move", "Abandoned"); break;
    case "move": text = words(moveTo(move.to, cardShort(move.card))); break;
    default: text = move.type;
  }
  return flipped ? words(turnsUp(text, cardShort(flipped))) : text;
}

/** The move for a list: the card drawn as a symbol by CSS (data-t) and named in words
 * for screen readers, so the visible text is part of the accessible name. */
export function moveNodes(move, flipped) {
  const card = (name) => [h("span", { class: "card-sym", "aria-hidden": "true", "data-t": cardShort(name) }),
    h("span", { class: "visually-hidden" }, cardLabel(name))];
  const nodes = move.type === "move" ? moveTo(move.to, card(move.card)) : [moveText(move, null)];
  return flipped ? turnsUp(nodes, card(flipped)) : nodes;
}

/** The same, for a screen reader ("9 of spades to column 4"). */
export function moveLabel(move, flipped) {
  const text = move.type === "move" ? words(moveTo(move.to, cardLabel(move.card))) : moveText(move, null);
  return flipped ? words(turnsUp(text, cardLabel(flipped))) : text;
}
