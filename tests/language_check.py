"""Finds English on a page that should be in Italian or Spanish (the language tests in
tests/browser/test_browser_languages.py).

What counts as English: a word of three or more letters that occurs in the English
messages of the catalogs (templates, Python, JavaScript) and in none of the target
language's translations. A string someone forgot to mark, or marked and left
untranslated, is made of such words ("Play", "moves", "Your account"); names,
numbers, deal codes and words both languages share are not."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
WORD = re.compile(r"[^\W\d_]{3,}")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|<[^>]+>")
# Names that every language writes the same way.
SHARED = {"klondike", "vegas", "glicko", "elo", "email", "token", "tokens", "password", "ok", "json", "api"}

# Every text a person can meet on the page: its title and description, text nodes, and
# the attributes that are read out or shown. Skips what is marked as another language
# (the switcher's "English") and what is not text (scripts, styles).
COLLECT = """() => {
  const own = document.documentElement.lang;
  const foreign = (el) => { const marked = el.closest("[lang]"); return marked && marked.lang !== own; };
  const found = [];
  const add = (text, where) => { if (text && text.trim()) found.push([text.trim(), where]); };
  add(document.title, "title");
  add(document.querySelector('meta[name="description"]')?.content, "meta description");
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("script, style, noscript, template") || foreign(parent)) continue;
    add(node.data, parent.tagName.toLowerCase() + (parent.id ? "#" + parent.id : ""));
  }
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], [alt], [aria-roledescription], input[type=submit], input[type=button]")) {
    if (foreign(el)) continue;
    for (const name of ["aria-label", "title", "placeholder", "alt", "aria-roledescription"]) {
      if (el.hasAttribute(name)) add(el.getAttribute(name), `${el.tagName.toLowerCase()}[${name}]`);
    }
    if (el.matches("input[type=submit], input[type=button]")) add(el.value, "input[value]");
  }
  return found;
}"""


def _words(text: str) -> set[str]:
    return {word.lower() for word in WORD.findall(PLACEHOLDER.sub(" ", text))}


def _messages(language: str) -> list[Any]:
    messages = []
    for domain in ("django", "djangojs"):
        with (ROOT / "locale" / language / "LC_MESSAGES" / f"{domain}.po").open("rb") as source:
            messages += [message for message in read_po(source) if message.id]
    return messages


@functools.cache
def english_words(language: str) -> frozenset[str]:
    """Words of the English messages that the language's translations never use."""
    english: set[str] = set()
    native: set[str] = set()
    for message in _messages(language):
        for text in (message.id if isinstance(message.id, tuple) else (message.id,)):
            english |= _words(text)
        for text in (message.string if isinstance(message.string, tuple) else (message.string,)):
            native |= _words(text or "")
    return frozenset(english - native - SHARED)


def english_on(page: Any, language: str) -> list[str]:
    """The English texts on the page now, with where they are."""
    vocabulary = english_words(language)
    found = []
    for text, where in page.evaluate(COLLECT):
        words = sorted(_words(text) & vocabulary)
        if words:
            found.append(f"{where}: {text[:120]!r} (English: {', '.join(words)})")
    return found
