"""Deal codes and the version-1 shuffle.

A deal code such as ``KL1-D1N-AAAAAAG`` names a deal, its draw mode and its scoring
system. The card order is computed from the deal number by :func:`shuffled_deck`, an
algorithm written out step by step in ``docs/deal-codes.md`` so that any language can
reproduce it: SplitMix64 seeded with the deal number, unbiased bounded integers by
rejection, and a Fisher–Yates shuffle. It does not use Python's ``random`` module,
whose internals are free to change between versions.
"""

from __future__ import annotations

import enum
import secrets
from dataclasses import dataclass
from typing import Final

from .cards import DECK, Card, any_case, spaced
from .text import Text, gettext_noop

PREFIX: Final = "KL1"
NUMBER_LENGTH: Final = 7
MAX_DEAL_NUMBER: Final = 2**35 - 1
BASE32_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

_MASK64: Final = 2**64 - 1
#: What :meth:`DealCode.parse` takes; pinned by tests/config/test_api_contract.py.
DEAL_CODE_PATTERN: Final = spaced(f"{any_case(PREFIX)}-{any_case('d')}[13][NnVv]-[A-Za-z2-7]{{{NUMBER_LENGTH}}}")


class Scoring(str, enum.Enum):
    NORMAL = "normal"
    VEGAS = "vegas"


class DealCodeError(ValueError):
    """A deal code that cannot be parsed; ``code`` says which part is wrong, ``detail``
    how (a :class:`~engine.text.Text`)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


@dataclass(frozen=True, slots=True)
class DealCode:
    """A parsed deal code: deal number, draw count (1 or 3) and scoring system."""

    number: int
    draw: int = 1
    scoring: Scoring = Scoring.NORMAL

    def __post_init__(self) -> None:
        if type(self.number) is not int or not 0 <= self.number <= MAX_DEAL_NUMBER:
            raise DealCodeError("bad_number", Text(gettext_noop("deal numbers are whole numbers from 0 to %(max)s"),
                                                   max=MAX_DEAL_NUMBER))
        if type(self.draw) is not int or self.draw not in (1, 3):
            # Translators: "draw" is a field name of the API.
            raise DealCodeError("bad_draw", Text(gettext_noop("draw must be 1 or 3")))
        try:
            object.__setattr__(self, "scoring", Scoring(self.scoring))
        except ValueError:
            # Translators: "scoring" is a field name of the API; normal and vegas are its values: keep them.
            raise DealCodeError("bad_scoring", Text(gettext_noop("scoring must be normal or vegas"))) from None

    def __str__(self) -> str:
        mode = f"D{self.draw}{'V' if self.scoring is Scoring.VEGAS else 'N'}"
        return f"{PREFIX}-{mode}-{encode_number(self.number)}"

    @classmethod
    def parse(cls, text: str) -> "DealCode":
        """Parse a code, case-insensitively and ignoring surrounding white space."""
        if not isinstance(text, str) or not text.isascii():
            # ASCII only: Unicode case folding would turn "ß" into "SS".
            raise DealCodeError("bad_format", Text(gettext_noop(
                "a deal code is a string of ASCII letters, digits and dashes like KL1-D1N-AAAAAAG")))
        parts = text.strip().upper().split("-")
        if len(parts) != 3:
            raise DealCodeError(
                "bad_format", Text(gettext_noop("a deal code has three parts separated by dashes, like KL1-D1N-AAAAAAG"))
            )
        prefix, mode, number = parts
        if prefix != PREFIX:
            raise DealCodeError("bad_prefix", Text(
                gettext_noop("the code must start with %(prefix)s (Klondike, deal algorithm version 1), not %(found)s"),
                prefix=PREFIX, found=repr(prefix)))
        draw, scoring = parse_mode(mode)
        return cls(decode_number(number), draw, scoring)

    @classmethod
    def random(cls, draw: int = 1, scoring: Scoring = Scoring.NORMAL) -> "DealCode":
        """A fresh code with a deal number from the operating system's CSPRNG."""
        return cls(secrets.randbelow(MAX_DEAL_NUMBER + 1), draw, scoring)


def parse_mode(mode: str) -> tuple[int, Scoring]:
    """A code's middle part (``D1N``, ``D1V``, ``D3N``, ``D3V``, upper case): its draw
    and scoring."""
    if len(mode) != 3 or mode[0] != "D":
        raise DealCodeError("bad_mode", Text(gettext_noop("the middle part must be D1N, D1V, D3N or D3V, not %(found)s"),
                                             found=repr(mode)))
    if mode[1] not in "13":
        raise DealCodeError("bad_draw", Text(gettext_noop("the draw must be D1 or D3, not %(found)s"), found=repr(mode[:2])))
    if mode[2] not in "NV":
        # Translators: N and V are the letters of the deal code: keep them.
        raise DealCodeError("bad_scoring", Text(gettext_noop("the scoring must be N (Normal) or V (Vegas), not %(found)s"),
                                                found=repr(mode[2])))
    return int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL


def encode_number(number: int) -> str:
    """The 7-character base-32 form of a deal number (``6`` → ``"AAAAAAG"``)."""
    chars = []
    for _ in range(NUMBER_LENGTH):
        chars.append(BASE32_ALPHABET[number & 31])
        number >>= 5
    return "".join(reversed(chars))


def decode_number(text: str) -> int:
    if len(text) != NUMBER_LENGTH:
        raise DealCodeError("bad_number", Text(
            gettext_noop("the deal number must be %(length)s characters of A–Z and 2–7, not %(found)s"),
            length=NUMBER_LENGTH, found=len(text)))
    number = 0
    for char in text:
        value = BASE32_ALPHABET.find(char)
        if value < 0:
            raise DealCodeError("bad_number", Text(
                gettext_noop("%(char)s is not a deal-number character: use A–Z and 2–7 (base 32)"), char=repr(char)))
        number = number * 32 + value
    return number


def splitmix64(state: int) -> tuple[int, int]:
    """One SplitMix64 step: returns ``(new_state, output)``, both 64-bit."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def shuffled_deck(number: int) -> list[Card]:
    """The version-1 card order of deal ``number`` (see ``docs/deal-codes.md``).

    Start from the sorted deck (A♠…K♠, A♥…K♥, A♦…K♦, A♣…K♣) and, for ``i`` from 51
    down to 1, swap position ``i`` with a position ``j`` drawn uniformly from
    ``0..i``. ``j`` is the first SplitMix64 output ``x`` below
    ``2**64 - 2**64 % (i + 1)``, taken modulo ``i + 1``.
    """
    if not 0 <= number <= MAX_DEAL_NUMBER:
        raise ValueError(f"deal numbers run from 0 to {MAX_DEAL_NUMBER}")
    deck = list(DECK)
    state = number
    for i in range(51, 0, -1):
        bound = i + 1
        limit = 2**64 - 2**64 % bound
        while True:
            state, x = splitmix64(state)
            if x < limit:
                break
        j = x % bound
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def layout(deck: list[Card]) -> tuple[list[list[Card]], list[Card]]:
    """Deal a card order onto the table, as a person deals.

    Rows are dealt left to right: the first card to t1, the next six to t2…t7, then
    one to each of t2…t7, and so on (28 cards). The remaining 24 form the stock, the
    29th card being the first drawn. Returns the columns (bottom → top) and the stock
    (next drawn first).
    """
    if sorted(deck) != list(DECK):
        raise ValueError("a deck is a permutation of the 52 cards")
    columns: list[list[Card]] = [[] for _ in range(7)]
    position = 0
    for row in range(7):
        for column in range(row, 7):
            columns[column].append(deck[position])
            position += 1
    return columns, deck[position:]
