// A move of the log in words, for move lists ("9♠ to column 4", "Draw").
import { cardLabel, cardShort } from "./cards.js";
import { h } from "./util.js";

function place(to) {
  if (to === "foundation") return "the foundation";
  if (/^t[1-7]$/.test(to)) return `column ${to.slice(1)}`;
  if (/^f[SHDC]$/.test(to)) return "the foundation";
  return to;
}

export function moveText(move, flipped) {
  let text;
  switch (move.type) {
    case "draw": text = "Draw"; break;
    case "recycle": text = "Turn the waste over"; break;
    case "undo": text = "Undo"; break;
    case "resign": text = "Gave up"; break;
    case "timeout": text = "Out of time"; break;
    case "abandon": text = "Abandoned"; break;
    case "move": text = `${cardShort(move.card)} to ${place(move.to)}`; break;
    default: text = move.type;
  }
  return flipped ? `${text}, turns up ${cardShort(flipped)}` : text;
}

/** The move for a list: the card drawn as a symbol by CSS (data-t) and named in words
 * for screen readers, so the visible text is part of the accessible name. */
export function moveNodes(move, flipped) {
  const card = (name) => [h("span", { class: "card-sym", "aria-hidden": "true", "data-t": cardShort(name) }),
    h("span", { class: "visually-hidden" }, cardLabel(name))];
  const nodes = move.type === "move" ? [...card(move.card), ` to ${place(move.to)}`] : [moveText(move, null)];
  if (flipped) nodes.push(", turns up ", ...card(flipped));
  return nodes;
}

/** The same, for a screen reader ("9 of spades to column 4"). */
export function moveLabel(move, flipped) {
  const text = move.type === "move" ? `${cardLabel(move.card)} to ${place(move.to)}` : moveText(move, null);
  return flipped ? `${text}, turns up ${cardLabel(flipped)}` : text;
}
