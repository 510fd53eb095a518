// The page's language: Django's JavaScript catalog (the <script> in base.html, served
// by frontend.views.javascript_catalog, plural forms included) and the browser's Intl
// for numbers, dates and money. Call gettext("…") with a literal string so that
// `manage.py makemessages -d djangojs` finds it; put values in with interpolate().

const catalog = globalThis.django || null;

/** The page's language ("en", "it", "es"): <html lang>. */
export const language = globalThis.document?.documentElement?.lang || "en";

export function gettext(text) {
  return catalog ? catalog.gettext(text) : text;
}

export function ngettext(singular, plural, count) {
  if (catalog) return catalog.ngettext(singular, plural, count);
  return count === 1 ? singular : plural;
}

export function pgettext(context, text) {
  return catalog ? catalog.pgettext(context, text) : text;
}

/** interpolate(gettext("%(name)s won"), { name }): named placeholders only (translators reorder them). */
export function interpolate(format, values) {
  return interpolateParts(format, values).map(String).join("");
}

const numbers = new Intl.NumberFormat(language);
const decimals = new Intl.NumberFormat(language, { maximumFractionDigits: 1 });

/** 1,234 (en) · 1.234 (it, es). */
export function formatNumber(n) {
  return Number.isInteger(n) ? numbers.format(n) : decimals.format(n);
}

// Intl formatters are made once: formatScore runs for every score on a board or a board's page.
const percents = new Map();
const dollars = (signDisplay) => new Intl.NumberFormat(language, {
  style: "currency", currency: "USD", currencyDisplay: "narrowSymbol",
  maximumFractionDigits: 0, minimumFractionDigits: 0, signDisplay,
});
const signedDollars = dollars("exceptZero");
const plainDollars = dollars("auto");

/** A percentage of 0–1: 42% (en) · 42% (it) · 42 % (es). */
export function formatPercent(fraction, digits = 0) {
  if (!percents.has(digits)) {
    percents.set(digits, new Intl.NumberFormat(language, { style: "percent", maximumFractionDigits: digits }));
  }
  return percents.get(digits).format(fraction);
}

/** Whole dollars in the locale's number format, the currency kept: +$1,208 · +1208 $. */
export function formatDollars(amount, { signed = true } = {}) {
  return (signed ? signedDollars : plainDollars).format(amount);
}

export function formatDateIn(value, options) {
  return new Intl.DateTimeFormat(language, options).format(value);
}

/** interpolate() for the DOM: a value may be a node (a link, a <b>) or an array of nodes
 * and strings; the answer is an array of strings and nodes for util.js h() / replace().
 * interpolateParts(gettext("Signed in as %(name)s"), { name: h("b", {}, user.username) }). */
export function interpolateParts(format, values) {
  const parts = [];
  let last = 0;
  for (const match of format.matchAll(/%\(([a-z_]+)\)s/g)) {
    if (match.index > last) parts.push(format.slice(last, match.index));
    parts.push(match[1] in values ? values[match[1]] : match[0]);
    last = match.index + match[0].length;
  }
  if (last < format.length) parts.push(format.slice(last));
  return parts;
}
