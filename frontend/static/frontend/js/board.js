// The board: draws a public view (engine.views.public_view) and turns drags,
// taps, double taps and keys into moves in the engine's wire format. It knows only
// what the server sent; cards keep their DOM element from one view to the next so
// moves animate (CSS transitions: they never block input). In a fair race a face-up
// card the viewer has not seen yet comes as "??" (cards.js UNSEEN) and is drawn as its
// own face, never as a back or a real card; it is filled in when the server names it.

import { SUITS, SUIT_ORDER, UNSEEN, cardLabel, cardOf, rankOf, rankText, suitOf } from "./cards.js";
import { formatNumber, gettext, interpolate, ngettext } from "./i18n.js";
import { announce, formatScore, h } from "./util.js";

const COLUMNS = ["t1", "t2", "t3", "t4", "t5", "t6", "t7"];
const TOP_ROW = ["stock", "waste", null, "fS", "fH", "fD", "fC"];
const DOUBLE_TAP_MS = 300;
const TURNING = "--"; // a card the client predicts will turn up: face down until the server names it

/** A full view (finished game) in the public view's shape. */
export function normalizeView(view, draw = 1) {
  if (!view || !Array.isArray(view.tableau)) return null;
  const first = view.tableau[0];
  if (first && Array.isArray(first.up)) return view;
  const waste = Array.isArray(view.waste) ? view.waste : [];
  const fan = Math.min(waste.length, view.draw || draw || 1);
  return {
    ...view,
    tableau: view.tableau.map((col) => ({ down: col.down, up: col.cards.slice(col.down) })),
    stock: { count: Array.isArray(view.stock) ? view.stock.length : view.stock?.count ?? 0 },
    waste: { count: waste.length, visible: fan ? waste.slice(-fan) : [] },
    can_undo: false,
    can_recycle: false,
  };
}

/** Cards on the foundations a view does not name by suit: a fair race shows each suit
 * only up to the run from the Ace the viewer has seen, and the true total. */
export function unnamedHome(view) {
  const named = SUIT_ORDER.reduce((n, suit) => n + (view.foundations[suit] ? rankOf(view.foundations[suit]) : 0), 0);
  return Math.max(0, (view.foundation_count ?? named) - named);
}

/** Whether a view leaves out a card name the viewer may not know yet (fair races). */
export function showsUnseen(view) {
  if (!view) return false;
  return (view.waste.visible || []).includes(UNSEEN) || view.tableau.some((col) => col.up.includes(UNSEEN))
    || unnamedHome(view) > 0;
}

function suitName(suit) { return SUITS[suit].name; }

/** "spades foundation", "spades foundation, empty" (a pile's name, for screen readers). */
function foundationName(suit, empty = false) {
  const name = suitName(suit);
  return empty ? interpolate(gettext("%(suit)s foundation, empty"), { suit: name })
    : interpolate(gettext("%(suit)s foundation"), { suit: name });
}

/** "Column 3", "Column 3, empty". */
function columnName(number, empty = false) {
  const column = formatNumber(number);
  return empty ? interpolate(gettext("Column %(column)s, empty"), { column })
    : interpolate(gettext("Column %(column)s"), { column });
}

export class Board {
  constructor(root, { interactive = true, compact = false, onMove = () => {}, onStock = () => {}, name = "" } = {}) {
    this.root = root;
    this.interactive = interactive;
    this.compact = compact;
    this.onMove = onMove;
    this.onStock = onStock;
    this.name = name;
    this.view = null;
    this.elements = new Map();
    this.slots = {};
    this.press = null;
    this.drag = null;
    this.selected = null;
    this.pendingTap = null;
    this.lastTap = null;
    this.geometry = null;
    root.classList.add("board");
    root.classList.toggle("compact", compact);
    root.classList.toggle("readonly", !interactive);
    if (interactive) {
      root.setAttribute("role", "application");
      root.setAttribute("aria-roledescription", gettext("solitaire board"));
      root.setAttribute("aria-label", name || gettext("Solitaire board: Tab through the cards, Enter sends a card to its foundation"));
    } else {
      // A group, not an image: a screen reader reaches each face-up card's name.
      root.setAttribute("role", "group");
      root.setAttribute("aria-roledescription", gettext("solitaire board"));
    }
    this.buildSlots();
    if (interactive) this.listen();
    // A new width lays the cards out again at once: no card should fly across the table.
    this.width = 0;
    this.resizer = new ResizeObserver(() => {
      if (this.root.clientWidth === this.width) return;
      this.width = this.root.clientWidth;
      this.root.classList.add("resizing");
      this.render();
      requestAnimationFrame(() => requestAnimationFrame(() => this.root.classList.remove("resizing")));
    });
    this.resizer.observe(root);
  }

  buildSlots() {
    const make = (pile, label, focusable) => {
      const el = h("div", { class: `slot slot-${pile[0] === "t" ? "column" : pile[0] === "f" ? "foundation" : pile}`,
        "data-pile": pile, "aria-label": label });
      // A name needs a role: a pile the player can act on is a button, any other an
      // image of the pile ("Waste, 3 cards").
      el.setAttribute("role", this.interactive && focusable ? "button" : "img");
      this.root.append(el);
      this.slots[pile] = el;
      return el;
    };
    const stock = make("stock", gettext("Stock"), true);
    stock.dataset.testid = "stock";
    if (this.interactive) stock.tabIndex = 0;
    make("waste", gettext("Waste, empty"), false);
    for (const suit of SUIT_ORDER) {
      const el = make(`f${suit}`, foundationName(suit, true), true);
      el.append(h("span", { class: `slot-suit ${SUITS[suit].red ? "red" : ""}`, "aria-hidden": "true", "data-t": SUITS[suit].symbol }));
    }
    COLUMNS.forEach((col, i) => make(col, columnName(i + 1, true), true));
    // Foundation cards the viewer may not be told by suit still count (the total).
    this.homeMore = h("div", { class: "foundation-more", "aria-hidden": "true", hidden: true });
    this.root.append(this.homeMore);
  }

  setView(view) {
    this.view = view;
    this.render();
  }

  // -- layout ---------------------------------------------------------------

  measure() {
    const width = this.root.clientWidth || 320;
    const gap = Math.max(3, Math.min(12, width * 0.014));
    // A compact (opponent's) board grows with its box too: on a wide screen it is a real
    // board, not a thumbnail.
    const maxCard = this.compact ? 96 : 112;
    const cardW = Math.max(20, Math.min(maxCard, (width - gap * 8) / 7));
    const cardH = Math.round(cardW * 1.4);
    const left = (width - (cardW * 7 + gap * 6)) / 2;
    const colX = (i) => left + i * (cardW + gap);
    const tableauTop = gap + cardH + gap * 2;
    return {
      width, gap, cardW, cardH, left, colX, tableauTop,
      downStep: cardH * (this.compact ? 0.08 : 0.1),
      upStep: cardH * (this.compact ? 0.2 : 0.27),
      fanStep: cardW * 0.24,
    };
  }

  items(g) {
    const v = this.view;
    const items = [];
    if (!v) return items;
    const top = g.gap;
    // Stock: a back with the count; the slot under it takes the taps.
    if (v.stock.count > 0) {
      items.push({ key: "stock", card: null, x: g.colX(0), y: top, z: 5, pile: "stock", decorative: true,
        badge: String(v.stock.count) });
    }
    // Waste: the visible fan, the top one playable; a back stands for cards under it.
    const visible = v.waste.visible || [];
    if (v.waste.count > visible.length) {
      items.push({ key: "waste-under", card: null, x: g.colX(1), y: top, z: 5, pile: "waste", decorative: true });
    }
    visible.forEach((card, i) => {
      const isTop = i === visible.length - 1;
      const unseen = card === UNSEEN;
      // An unseen card is known by its place in the waste (several may be shown).
      const key = unseen ? `w?:${v.waste.count - visible.length + i}` : card;
      items.push({ key, card, x: g.colX(1) + i * (this.compact ? g.fanStep * 0.6 : g.fanStep), y: top, z: 10 + i,
        pile: "waste", playable: isTop && !unseen, from: "stock" });
    });
    // Foundations: the top card, and the one under it so a take-back uncovers something.
    SUIT_ORDER.forEach((suit, i) => {
      const topCard = v.foundations[suit];
      if (!topCard) return;
      const rank = rankOf(topCard);
      if (rank > 1) {
        const under = cardOf(rank - 1, suit);
        items.push({ key: under, card: under, x: g.colX(3 + i), y: top, z: 8, pile: `f${suit}`, decorative: true });
      }
      items.push({ key: topCard, card: topCard, x: g.colX(3 + i), y: top, z: 10, pile: `f${suit}`, playable: true });
    });
    // Tableau.
    v.tableau.forEach((col, c) => {
      let y = g.tableauTop;
      for (let k = 0; k < col.down; k += 1) {
        items.push({ key: `d:${c}:${k}`, card: null, x: g.colX(c), y, z: 10 + k, pile: COLUMNS[c], decorative: true });
        y += g.downStep;
      }
      col.up.forEach((card, k) => {
        if (card === TURNING) {
          items.push({ key: `u:${c}`, card: null, x: g.colX(c), y, z: 10 + col.down + k, pile: COLUMNS[c], decorative: true });
        } else {
          const unseen = card === UNSEEN;
          items.push({ key: unseen ? `t?:${c}:${col.down + k}` : card, card, x: g.colX(c), y, z: 10 + col.down + k,
            pile: COLUMNS[c], index: k, playable: !unseen });
        }
        y += g.upStep;
      });
    });
    return items;
  }

  render() {
    if (!this.view) return;
    const g = this.measure();
    this.geometry = g;
    const v = this.view;
    this.root.style.setProperty("--card-w", `${g.cardW}px`);
    this.root.style.setProperty("--card-h", `${g.cardH}px`);
    // Slots.
    const place = (el, x, y) => { el.style.transform = `translate(${x}px, ${y}px)`; };
    place(this.slots.stock, g.colX(0), g.gap);
    place(this.slots.waste, g.colX(1), g.gap);
    SUIT_ORDER.forEach((suit, i) => place(this.slots[`f${suit}`], g.colX(3 + i), g.gap));
    COLUMNS.forEach((col, i) => place(this.slots[col], g.colX(i), g.tableauTop));
    this.updateSlots();
    this.showHomeMore(g);
    // Height: the tallest column.
    let bottom = g.tableauTop + g.cardH;
    v.tableau.forEach((col) => {
      const height = g.tableauTop + col.down * g.downStep + Math.max(0, col.up.length - 1) * g.upStep + g.cardH;
      bottom = Math.max(bottom, height);
    });
    this.root.style.height = `${Math.ceil(bottom + g.gap + (this.compact ? 0 : g.cardH * 0.5))}px`;

    const items = this.items(g);
    const seen = new Set();
    const focused = document.activeElement;
    const order = [];
    for (const item of items) {
      seen.add(item.key);
      let el = this.elements.get(item.key);
      const fresh = !el;
      if (fresh) {
        el = h("div", { class: "card" });
        this.elements.set(item.key, el);
      }
      this.paint(el, item, fresh, g);
      order.push(el);
    }
    for (const [key, el] of this.elements) {
      if (!seen.has(key)) {
        el.remove();
        this.elements.delete(key);
      }
    }
    // Keep the DOM (and so the Tab order) in reading order; keep the focus.
    const current = [...this.root.querySelectorAll(":scope > .card")];
    if (current.length !== order.length || current.some((el, i) => el !== order[i])) {
      for (const el of order) this.root.append(el);
      if (focused && this.root.contains(focused) && document.activeElement !== focused) focused.focus({ preventScroll: true });
    }
    if (this.drag) this.followDrag();
    if (!this.interactive) this.root.setAttribute("aria-label", this.summary());
  }

  paint(el, item, fresh, g) {
    const faceUp = !!item.card;
    const unseen = item.card === UNSEEN;
    const named = faceUp && !unseen;
    el.dataset.key = item.key;
    el.dataset.pile = item.pile;
    if (named) el.dataset.card = item.card; else delete el.dataset.card;
    el.classList.toggle("back", !faceUp);
    el.classList.toggle("unseen", unseen);
    el.classList.toggle("red", named && SUITS[suitOf(item.card)].red);
    el.classList.toggle("playable", !!item.playable && named && this.interactive);
    el.classList.toggle("selected", this.selected === item.card && named);
    if (unseen && el.dataset.face !== UNSEEN) {
      el.dataset.face = UNSEEN;
      el.replaceChildren(
        h("span", { class: "corner tl", "aria-hidden": "true" }, h("b", { "data-t": "?" })),
        h("span", { class: "unseen-mark", "aria-hidden": "true", "data-t": "?" }),
      );
    } else if (named && el.dataset.face !== item.card) {
      el.dataset.face = item.card;
      const rank = rankText(item.card);
      const symbol = SUITS[suitOf(item.card)].symbol;
      // The face is drawn by CSS from data-t (::before), not as text: a card's name
      // ("9 of spades") is then its only text, for screen readers and voice control
      // alike (WCAG 2.5.3, label in name).
      el.replaceChildren(
        h("span", { class: "corner tl", "aria-hidden": "true" }, h("b", { "data-t": rank }), h("i", { "data-t": symbol })),
        h("span", { class: "pip", "aria-hidden": "true", "data-t": symbol }),
        h("span", { class: "corner br", "aria-hidden": "true" }, h("b", { "data-t": rank }), h("i", { "data-t": symbol })),
      );
    } else if (!faceUp && el.dataset.face !== "") {
      el.dataset.face = "";
      el.replaceChildren();
    }
    if (item.badge) {
      let badge = el.querySelector(".badge");
      if (!badge) { badge = h("span", { class: "badge", "aria-hidden": "true" }); el.append(badge); }
      badge.textContent = item.badge;
    }
    // Accessibility: face-up playable cards are buttons named like "9 of spades"; on a
    // board that is only watched, face-up cards are images with the same names (an
    // unseen one: "face-up card you have not seen yet"), not in the Tab order.
    if (named && !item.decorative && this.interactive) {
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", cardLabel(item.card));
      el.setAttribute("aria-description", this.pileDescription(item));
      el.tabIndex = 0;
      if (this.selected === item.card) el.setAttribute("aria-pressed", "true"); else el.removeAttribute("aria-pressed");
      el.removeAttribute("aria-hidden");
    } else if (faceUp && !item.decorative) {
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", cardLabel(item.card));
      el.setAttribute("aria-description", this.pileDescription(item));
      el.removeAttribute("aria-pressed");
      el.removeAttribute("tabindex");
      el.removeAttribute("aria-hidden");
    } else {
      el.removeAttribute("role");
      el.removeAttribute("aria-label");
      el.removeAttribute("aria-description");
      el.removeAttribute("aria-pressed");
      el.removeAttribute("tabindex");
      el.setAttribute("aria-hidden", "true");
    }
    el.style.zIndex = String(item.z);
    if (this.drag && this.drag.keys.includes(item.key)) return; // it follows the pointer
    const transform = `translate(${item.x}px, ${item.y}px)`;
    if (fresh) {
      el.classList.add("no-anim");
      const origin = item.from === "stock" ? `translate(${g.colX(0)}px, ${g.gap}px)` : transform;
      el.style.transform = origin;
      this.root.append(el);
      if (origin !== transform || (faceUp && this.view)) el.classList.add("entering");
      void el.offsetWidth; // commit the start position before animating
      el.classList.remove("no-anim");
      el.addEventListener("animationend", () => el.classList.remove("entering"), { once: true });
    }
    el.style.transform = transform;
    el._x = item.x;
    el._y = item.y;
  }

  pileDescription(item) {
    // Translators: where a card lies (a screen reader reads it after the card's name).
    if (item.pile === "waste") return gettext("waste");
    if (item.pile[0] === "f") return foundationName(item.pile[1]);
    // Translators: where a card lies (a screen reader reads it after the card's name).
    return interpolate(gettext("column %(column)s"), { column: formatNumber(Number(item.pile.slice(1))) });
  }

  updateSlots() {
    const v = this.view;
    const stock = this.slots.stock;
    stock.classList.toggle("recycle", v.stock.count === 0 && !!v.can_recycle);
    stock.classList.toggle("empty", v.stock.count === 0 && !v.can_recycle);
    stock.setAttribute("aria-label", v.stock.count > 0
      ? interpolate(ngettext("Stock, %(count)s card: draw", "Stock, %(count)s cards: draw", v.stock.count),
        { count: formatNumber(v.stock.count) })
      : v.can_recycle ? gettext("Empty stock: turn the waste over") : gettext("Empty stock"));
    this.slots.waste.setAttribute("aria-label", v.waste.count
      ? interpolate(ngettext("Waste, %(count)s card", "Waste, %(count)s cards", v.waste.count), { count: formatNumber(v.waste.count) })
      : gettext("Waste, empty"));
    for (const suit of SUIT_ORDER) {
      const slot = this.slots[`f${suit}`];
      const empty = !v.foundations[suit];
      slot.setAttribute("aria-label", foundationName(suit, empty));
      if (this.interactive) { if (empty) slot.tabIndex = 0; else slot.removeAttribute("tabindex"); }
    }
    v.tableau.forEach((col, i) => {
      const slot = this.slots[COLUMNS[i]];
      const empty = col.down === 0 && col.up.length === 0;
      slot.setAttribute("aria-label", columnName(i + 1, empty));
      if (this.interactive) { if (empty) slot.tabIndex = 0; else slot.removeAttribute("tabindex"); }
    });
  }

  /** Foundation cards the view does not name: their number, over the gap in the top row. */
  showHomeMore(g) {
    const more = unnamedHome(this.view);
    this.homeMore.hidden = more === 0;
    if (!more) return;
    // Translators: under "+3": cards put up on the foundations that the viewer has not seen.
    this.homeMore.replaceChildren(h("b", {}, `+${formatNumber(more)}`), h("span", {}, gettext("home")));
    this.homeMore.title = interpolate(ngettext("%(count)s more card on the foundations, not yet seen",
      "%(count)s more cards on the foundations, not yet seen", more), { count: formatNumber(more) });
    this.homeMore.style.transform = `translate(${g.colX(2)}px, ${g.gap}px)`;
  }

  summary() {
    const v = this.view;
    if (!v) return this.name || gettext("board");
    const more = unnamedHome(v);
    const home = v.foundation_count;
    let cards = interpolate(ngettext("%(count)s card on the foundations", "%(count)s cards on the foundations", home),
      { count: formatNumber(home) });
    if (more) {
      cards = interpolate(ngettext("%(cards)s (%(count)s you have not seen yet)", "%(cards)s (%(count)s you have not seen yet)", more),
        { cards, count: formatNumber(more) });
    }
    const score = v.scoring ? formatScore(v.score, v.scoring) : v.score_text ?? formatScore(v.score, "normal");
    const text = interpolate(ngettext("%(cards)s, score %(score)s, %(count)s move", "%(cards)s, score %(score)s, %(count)s moves", v.moves),
      { cards, score, count: formatNumber(v.moves) });
    // Translators: a watched board's name: "alice: 12 cards on the foundations, score 60, 41 moves".
    return this.name ? interpolate(gettext("%(name)s: %(summary)s"), { name: this.name, summary: text }) : text;
  }

  // -- the position, as the board knows it -------------------------------------

  /** Where a face-up card is: {pile, index} or null. */
  locate(card) {
    const v = this.view;
    if (!v) return null;
    const visible = v.waste.visible || [];
    if (visible[visible.length - 1] === card) return { pile: "waste" };
    for (const suit of SUIT_ORDER) if (v.foundations[suit] === card) return { pile: `f${suit}` };
    for (let c = 0; c < 7; c += 1) {
      const k = v.tableau[c].up.indexOf(card);
      if (k >= 0) return { pile: COLUMNS[c], index: k };
    }
    return null;
  }

  runKeys(card) {
    const where = this.locate(card);
    if (!where) return [card];
    if (where.pile[0] === "t") {
      const col = this.view.tableau[Number(where.pile.slice(1)) - 1];
      return col.up.slice(where.index).map((c) => (c === TURNING ? `u:${where.pile.slice(1) - 1}` : c));
    }
    return [card];
  }

  // -- input --------------------------------------------------------------------

  listen() {
    const root = this.root;
    root.addEventListener("pointerdown", (e) => this.pointerDown(e));
    root.addEventListener("pointermove", (e) => this.pointerMove(e));
    root.addEventListener("pointerup", (e) => this.pointerUp(e));
    root.addEventListener("pointercancel", () => this.cancelDrag());
    root.addEventListener("lostpointercapture", () => { if (this.drag) this.pointerUp(null); });
    root.addEventListener("keydown", (e) => this.keyDown(e));
    root.addEventListener("contextmenu", (e) => { if (e.target.closest(".card")) e.preventDefault(); });
  }

  pointerDown(e) {
    if (e.button !== undefined && e.button !== 0) return;
    const slot = e.target.closest(".slot");
    if (slot && slot.dataset.pile === "stock") {
      e.preventDefault();
      this.tapStock();
      return;
    }
    const el = e.target.closest(".card");
    if (!el || !el.dataset.card || !el.classList.contains("playable")) return;
    e.preventDefault();
    el.focus({ preventScroll: true });
    this.press = { card: el.dataset.card, pile: el.dataset.pile, x: e.clientX, y: e.clientY, id: e.pointerId,
      touch: e.pointerType === "touch" };
    try { this.root.setPointerCapture(e.pointerId); } catch { /* synthetic events */ }
  }

  pointerMove(e) {
    const press = this.press;
    if (!press || e.pointerId !== press.id) return;
    const dx = e.clientX - press.x;
    const dy = e.clientY - press.y;
    if (!this.drag) {
      if (Math.hypot(dx, dy) < (press.touch ? 8 : 5)) return;
      const keys = this.runKeys(press.card);
      const els = keys.map((k) => this.elements.get(k)).filter(Boolean);
      this.drag = { card: press.card, pile: press.pile, keys, els, starts: els.map((el) => [el._x, el._y]), dx: 0, dy: 0 };
      els.forEach((el, i) => { el.classList.add("dragging"); el.style.zIndex = String(1000 + i); });
      this.root.classList.add("is-dragging");
    }
    e.preventDefault();
    this.drag.dx = dx;
    this.drag.dy = dy;
    this.followDrag();
    this.markTarget(this.dropTarget());
  }

  followDrag() {
    const d = this.drag;
    d.els.forEach((el, i) => {
      const [x, y] = d.starts[i];
      el.style.transform = `translate(${x + d.dx}px, ${y + d.dy}px)`;
    });
  }

  pointerUp(e) {
    const press = this.press;
    if (!press || (e && e.pointerId !== press.id)) return;
    this.press = null;
    if (this.drag) {
      const target = this.dropTarget();
      const drag = this.drag;
      this.endDrag();
      if (target && target !== drag.pile) {
        this.onMove({ type: "move", card: drag.card, to: target[0] === "f" ? "foundation" : target }, { via: "drag" });
      } else {
        this.render(); // back where it came from
      }
      return;
    }
    this.tapCard(press.card, press.pile);
  }

  endDrag() {
    if (!this.drag) return;
    this.drag.els.forEach((el) => el.classList.remove("dragging"));
    this.root.classList.remove("is-dragging");
    this.markTarget(null);
    this.drag = null;
  }

  cancelDrag() {
    this.press = null;
    if (this.drag) { this.endDrag(); this.render(); }
  }

  /** The pile under the dragged card: the one it overlaps most. */
  dropTarget() {
    const d = this.drag;
    const g = this.geometry;
    if (!d || !g) return null;
    const [sx, sy] = d.starts[0];
    const x = sx + d.dx;
    const y = sy + d.dy;
    const overlap = (ax, ay, aw, ah) => {
      const w = Math.min(x + g.cardW, ax + aw) - Math.max(x, ax);
      const hgt = Math.min(y + g.cardH, ay + ah) - Math.max(y, ay);
      return w > 0 && hgt > 0 ? w * hgt : 0;
    };
    let best = null;
    let bestArea = 0;
    const consider = (pile, ax, ay, aw, ah) => {
      const area = overlap(ax, ay, aw, ah);
      if (area > bestArea) { best = pile; bestArea = area; }
    };
    SUIT_ORDER.forEach((suit, i) => consider(`f${suit}`, g.colX(3 + i), g.gap, g.cardW, g.cardH));
    const height = this.root.clientHeight;
    this.view.tableau.forEach((col, i) => {
      const top = g.tableauTop;
      const bottom = Math.max(top + col.down * g.downStep + Math.max(0, col.up.length - 1) * g.upStep + g.cardH, top + g.cardH);
      consider(COLUMNS[i], g.colX(i) - g.gap / 2, top - g.gap, g.cardW + g.gap, Math.max(bottom - top + g.gap * 2, height - top));
    });
    return bestArea > g.cardW * g.cardH * 0.08 ? best : null;
  }

  markTarget(pile) {
    for (const [name, slot] of Object.entries(this.slots)) slot.classList.toggle("target", name === pile);
  }

  tapStock() {
    this.clearSelection();
    this.onStock();
  }

  /** One tap: to the foundation; two quick taps: to a column. */
  tapCard(card, pile) {
    const now = performance.now();
    if (this.lastTap && this.lastTap.card === card && now - this.lastTap.time < DOUBLE_TAP_MS) {
      clearTimeout(this.pendingTap);
      this.pendingTap = null;
      this.lastTap = null;
      this.onMove({ type: "move", card, to: "tableau" }, { via: "double-tap" });
      return;
    }
    clearTimeout(this.pendingTap);
    this.lastTap = { card, time: now };
    this.pendingTap = setTimeout(() => {
      this.pendingTap = null;
      this.lastTap = null;
      if (pile[0] !== "f") this.onMove({ type: "move", card, to: "foundation" }, { via: "tap" });
    }, DOUBLE_TAP_MS);
  }

  // -- keyboard -------------------------------------------------------------------

  keyDown(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const el = e.target.closest(".card, .slot");
    if (!el || !this.root.contains(el)) return;
    const card = el.dataset.card || null;
    const pile = el.dataset.pile;
    const key = e.key;
    let handled = true;
    if (pile === "stock" && (key === "Enter" || key === " ")) {
      this.tapStock();
    } else if (key === "Escape") {
      handled = !!this.selected;
      this.clearSelection(true);
    } else if (key === " " || (key === "Enter" && this.selected && this.selected !== card)) {
      if (this.selected && this.selected !== card) {
        const from = this.selected;
        this.clearSelection();
        if (pile && pile !== "stock" && pile !== "waste") {
          this.onMove({ type: "move", card: from, to: pile[0] === "f" ? "foundation" : pile }, { via: "keyboard" });
        }
      } else if (this.selected === card) {
        this.clearSelection(true);
      } else if (card) {
        this.select(card);
      }
    } else if (key === "Enter" && card) {
      if (e.shiftKey) this.onMove({ type: "move", card, to: "tableau" }, { via: "keyboard" });
      else if (pile[0] !== "f") this.onMove({ type: "move", card, to: "foundation" }, { via: "keyboard" });
    } else if ((key === "t" || key === "T") && (this.selected || card)) {
      const moving = this.selected || card;
      this.clearSelection();
      this.onMove({ type: "move", card: moving, to: "tableau" }, { via: "keyboard" });
    } else if ((key === "f" || key === "F") && (this.selected || card)) {
      const moving = this.selected || card;
      this.clearSelection();
      this.onMove({ type: "move", card: moving, to: "foundation" }, { via: "keyboard" });
    } else if (/^[1-7]$/.test(key) && (this.selected || card)) {
      const moving = this.selected || card;
      this.clearSelection();
      this.onMove({ type: "move", card: moving, to: `t${key}` }, { via: "keyboard" });
    } else if (key === "d" || key === "D") {
      this.tapStock();
    } else if (key.startsWith("Arrow")) {
      this.navigate(el, key);
    } else {
      handled = false;
    }
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  }

  select(card) {
    this.selected = card;
    this.render();
    announce(interpolate(gettext("Picked up %(card)s. Go to a pile and press Space to put it there, Escape to cancel."),
      { card: cardLabel(card) }));
  }

  clearSelection(say = false) {
    if (!this.selected) return;
    this.selected = null;
    this.render();
    if (say) announce(gettext("Put back."));
  }

  /** The element to focus for a pile: its top playable card, or the slot. */
  focusTarget(pile) {
    if (!pile) return null;
    if (pile === "stock") return this.slots.stock;
    const cards = [...this.root.querySelectorAll(`:scope > .card[data-pile="${pile}"][tabindex="0"]`)];
    if (cards.length) return cards[cards.length - 1];
    const slot = this.slots[pile];
    return slot && slot.tabIndex === 0 ? slot : null;
  }

  navigate(el, key) {
    const pile = el.dataset.pile;
    const ring = [...TOP_ROW.filter(Boolean), ...COLUMNS];
    const go = (target) => { if (target) { target.focus(); return true; } return false; };
    if (key === "ArrowLeft" || key === "ArrowRight") {
      const step = key === "ArrowRight" ? 1 : -1;
      let i = ring.indexOf(pile);
      for (let n = 0; n < ring.length; n += 1) {
        i = (i + step + ring.length) % ring.length;
        if (go(this.focusTarget(ring[i]))) return;
      }
      return;
    }
    const inColumn = pile[0] === "t";
    if (inColumn) {
      const cards = [...this.root.querySelectorAll(`:scope > .card[data-pile="${pile}"][tabindex="0"]`)];
      const i = cards.indexOf(el);
      if (key === "ArrowDown" && i >= 0 && i < cards.length - 1) { go(cards[i + 1]); return; }
      if (key === "ArrowUp" && i > 0) { go(cards[i - 1]); return; }
      if (key === "ArrowUp") {
        const above = TOP_ROW[Number(pile.slice(1)) - 1];
        go(this.focusTarget(above) || this.focusTarget("stock"));
      }
      return;
    }
    if (key === "ArrowDown") {
      const col = TOP_ROW.indexOf(pile);
      for (let c = col; c < 7; c += 1) {
        const target = this.focusTarget(COLUMNS[c]);
        if (target) { const cards = [...this.root.querySelectorAll(`:scope > .card[data-pile="${COLUMNS[c]}"][tabindex="0"]`)]; go(cards[0] || target); return; }
      }
    }
  }

  /** A refused move: shake the card where it snapped back to. */
  refuse(card) {
    const el = card && this.elements.get(card);
    if (!el) return;
    el.classList.remove("refused");
    void el.offsetWidth;
    el.classList.add("refused");
    el.addEventListener("animationend", () => el.classList.remove("refused"), { once: true });
  }

  highlight(card) {
    const el = card && this.elements.get(card);
    if (!el) return;
    el.classList.add("hinted");
    setTimeout(() => el.classList.remove("hinted"), 2500);
  }
}

// -- prediction: what a move will look like, shown before the server answers ------

function clone(view) {
  return {
    ...view,
    foundations: { ...view.foundations },
    tableau: view.tableau.map((col) => ({ down: col.down, up: [...col.up] })),
    stock: { ...view.stock },
    waste: { ...view.waste, visible: [...(view.waste.visible || [])] },
  };
}

/** The view after a card move, or null when the client cannot tell (the server decides).
 * A double tap ("to": "tableau") is not guessed: which column it picks is a rule
 * (RULES.md "Smart destinations"), and rules live in the engine only. */
export function predict(view, move) {
  if (!view || move.type !== "move" || move.to === "tableau") return null;
  const next = clone(view);
  const card = move.card;
  // Take the card (and the run on it) from where it is.
  let run = null;
  let fromColumn = -1;
  const visible = next.waste.visible;
  if (visible[visible.length - 1] === card) {
    visible.pop();
    next.waste.count -= 1;
    run = [card];
  } else if (Object.values(next.foundations).includes(card)) {
    const rank = rankOf(card);
    next.foundations[suitOf(card)] = rank > 1 ? cardOf(rank - 1, suitOf(card)) : null;
    next.foundation_count -= 1;
    run = [card];
  } else {
    for (let c = 0; c < 7; c += 1) {
      const col = next.tableau[c];
      const k = col.up.indexOf(card);
      if (k >= 0) {
        run = col.up.splice(k);
        fromColumn = c;
        if (col.up.length === 0 && col.down > 0) { col.down -= 1; col.up.push(TURNING); }
        break;
      }
    }
  }
  if (!run) return null;
  const to = move.to;
  if (to === "foundation") {
    if (run.length !== 1) return null;
    const suit = suitOf(card);
    next.foundations[suit] = card;
    next.foundation_count += 1;
    return next;
  }
  const index = COLUMNS.indexOf(to);
  if (index < 0 || index === fromColumn) return null;
  next.tableau[index].up.push(...run);
  return next;
}

export { COLUMNS, TURNING };
