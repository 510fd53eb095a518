// Cards in the wire notation: rank A23456789TJQK + suit SHDC, e.g. "TH"; and the
// placeholder "??" a fair race sends for a face-up card the viewer has not seen yet.
// The names people read (screen readers, move lists) are in the page's language.

import { gettext, interpolate, pgettext } from "./i18n.js";

export const SUITS = {
  S: { name: pgettext("suit", "spades"), symbol: "♠", red: false },
  H: { name: pgettext("suit", "hearts"), symbol: "♥", red: true },
  D: { name: pgettext("suit", "diamonds"), symbol: "♦", red: true },
  C: { name: pgettext("suit", "clubs"), symbol: "♣", red: false },
};
export const SUIT_ORDER = ["S", "H", "D", "C"];
export const RANKS = "A23456789TJQK";
/** A face-up card the viewer may not be told (engine.views.UNSEEN). */
export const UNSEEN = "??";
export const UNSEEN_LABEL = gettext("face-up card you have not seen yet");
const RANK_WORDS = {
  A: pgettext("rank", "ace"), T: "10", J: pgettext("rank", "jack"), Q: pgettext("rank", "queen"), K: pgettext("rank", "king"),
};

export function rankOf(card) { return RANKS.indexOf(card[0]) + 1; }
export function suitOf(card) { return card[1]; }
export function rankText(card) { return card[0] === "T" ? "10" : card[0]; }

/** "9 of spades", "ace of hearts", "10 of diamonds". */
export function cardLabel(card) {
  if (card === UNSEEN) return UNSEEN_LABEL;
  if (!card || card.length !== 2 || !SUITS[card[1]]) return gettext("face-down card");
  // Translators: a card's name: "9 of spades", "ace of hearts" (rank, then suit).
  return interpolate(gettext("%(rank)s of %(suit)s"), { rank: RANK_WORDS[card[0]] || card[0], suit: SUITS[card[1]].name });
}

export function cardShort(card) {
  if (card === UNSEEN) return "?";
  return `${rankText(card)}${SUITS[card[1]].symbol}`;
}

export function cardOf(rank, suit) { return RANKS[rank - 1] + suit; }
