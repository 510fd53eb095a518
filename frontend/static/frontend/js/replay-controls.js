// Step, play and scrub through a sequence of positions (a game's moves, or a race's
// moments), with the keyboard too; the position is kept in the URL (?at=N) so a link
// opens the replay there.
import { formatNumber, gettext, interpolate } from "./i18n.js";
import { $ } from "./util.js";

export class ReplayControls {
  /** ``count``: the positions 0…count-1; ``delayTo(i)``: ms to wait before showing
   * position i+1 when playing at real speed; ``show(i)``: draw position i. */
  constructor({ count, delayTo, show }) {
    this.count = count;
    this.delayTo = delayTo;
    this.show = show;
    this.index = 0;
    this.timer = null;
    this.els = { first: $("#first"), back: $("#back"), play: $("#play"), forward: $("#forward"), last: $("#last"),
      speed: $("#speed"), scrub: $("#scrub"), copy: $("#copy-link") };
    const e = this.els;
    e.scrub.max = String(Math.max(0, count - 1));
    e.first.addEventListener("click", () => this.go(0));
    e.back.addEventListener("click", () => this.go(this.index - 1));
    e.forward.addEventListener("click", () => this.go(this.index + 1));
    e.last.addEventListener("click", () => this.go(this.count - 1));
    e.play.addEventListener("click", () => this.toggle());
    e.scrub.addEventListener("input", () => this.go(Number(e.scrub.value)));
    e.copy.addEventListener("click", () => this.copyLink());
    document.addEventListener("keydown", (event) => this.key(event));
    const start = Number(new URLSearchParams(location.search).get("at"));
    this.go(Number.isInteger(start) && start >= 0 ? Math.min(start, count - 1) : 0, { keepUrl: true });
  }

  go(index, { keepUrl = false, playing = false } = {}) {
    if (!playing) this.pause();
    this.index = Math.max(0, Math.min(this.count - 1, index));
    this.els.scrub.value = String(this.index);
    // Translators: the position shown in a replay: "12 of 87".
    this.els.scrub.setAttribute("aria-valuetext", interpolate(gettext("%(index)s of %(count)s"),
      { index: formatNumber(this.index), count: formatNumber(this.count - 1) }));
    this.els.back.disabled = this.els.first.disabled = this.index === 0;
    this.els.forward.disabled = this.els.last.disabled = this.index === this.count - 1;
    this.show(this.index);
    if (!keepUrl) history.replaceState(null, "", this.link());
  }

  link() {
    const url = new URL(location.href);
    if (this.index) url.searchParams.set("at", String(this.index)); else url.searchParams.delete("at");
    return url.toString();
  }

  async copyLink() {
    try { await navigator.clipboard.writeText(this.link()); this.els.copy.textContent = gettext("Link copied"); } catch {
      this.els.copy.textContent = gettext("Copy did not work: use the address bar");
    }
    setTimeout(() => { this.els.copy.textContent = gettext("Copy link to this moment"); }, 2500);
  }

  toggle() { if (this.timer) this.pause(); else this.play(); }

  play() {
    if (this.index >= this.count - 1) this.go(0);
    this.els.play.textContent = gettext("Pause");
    this.els.play.setAttribute("aria-pressed", "true");
    const next = () => {
      if (this.index >= this.count - 1) { this.pause(); return; }
      const speed = Number(this.els.speed.value) || 1;
      this.timer = setTimeout(() => { this.go(this.index + 1, { playing: true }); next(); },
        Math.min(5000, this.delayTo(this.index) / speed));
    };
    this.timer = -1;
    next();
  }

  pause() {
    if (this.timer && this.timer !== -1) clearTimeout(this.timer);
    this.timer = null;
    // Translators: a replay's button (play it back).
    this.els.play.textContent = gettext("Play");
    this.els.play.setAttribute("aria-pressed", "false");
  }

  key(event) {
    if (event.target.closest("input, select, textarea") && event.target.id !== "scrub") return;
    const actions = { ArrowLeft: () => this.go(this.index - 1), ArrowRight: () => this.go(this.index + 1),
      Home: () => this.go(0), End: () => this.go(this.count - 1), " ": () => this.toggle() };
    const action = actions[event.key];
    if (!action || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    action();
  }
}
