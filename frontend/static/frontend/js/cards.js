// Cards in the wire notation: rank A23456789TJQK + suit SHDC, e.g. "TH"; and the
// placeholder "??" a fair race sends for a face-up card the viewer has not seen yet.

export const SUITS = {
  S: { name: "spades", symbol: "♠", red: false },
  H: { name: "hearts", symbol: "♥", red: true },
  D: { name: "diamonds", symbol: "♦", red: true },
  C: { name: "clubs", symbol: "♣", red: false },
};
export const SUIT_ORDER = ["S", "H", "D", "C"];
export const RANKS = "A23456789TJQK";
/** A face-up card the viewer may not be told (engine.views.UNSEEN). */
export const UNSEEN = "??";
export const UNSEEN_LABEL = "face-up card you have not seen yet";
const RANK_WORDS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

export function rankOf(card) { return RANKS.indexOf(card[0]) + 1; }
export function suitOf(card) { return card[1]; }
export function rankText(card) { return card[0] === "T" ? "10" : card[0]; }

/** "9 of spades", "ace of hearts", "10 of diamonds". */
export function cardLabel(card) {
  if (card === UNSEEN) return UNSEEN_LABEL;
  if (!card || card.length !== 2 || !SUITS[card[1]]) return "face-down card";
  return `${RANK_WORDS[card[0]] || card[0]} of ${SUITS[card[1]].name}`;
}

export function cardShort(card) {
  if (card === UNSEEN) return "?";
  return `${rankText(card)}${SUITS[card[1]].symbol}`;
}

export function cardOf(rank, suit) { return RANKS[rank - 1] + suit; }
