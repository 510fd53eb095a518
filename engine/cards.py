"""Cards as small integers.

A card is an ``int`` in ``0..51``: ``suit * 13 + (rank - 1)`` with suits in the
fixed foundation order ♠ ♥ ♦ ♣ (``S H D C``) and ranks A=1 … K=13. Integers keep the
hot paths (move validation, legal-move generation, the solver) free of object
allocation; :func:`card_name` and :func:`parse_card` convert to and from the wire
notation (``"TH"`` = ten of hearts).
"""

from __future__ import annotations

from typing import Final

Card = int

SUITS: Final = "SHDC"
RANKS: Final = "A23456789TJQK"
SUIT_SYMBOLS: Final = "♠♥♦♣"

SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
ACE, KING = 1, 13

DECK: Final[tuple[Card, ...]] = tuple(range(52))


def make_card(rank: int, suit: int) -> Card:
    return suit * 13 + rank - 1


#: Lookup tables indexed by card: cheaper than arithmetic in the hot loops.
RANK: Final[tuple[int, ...]] = tuple(c % 13 + 1 for c in DECK)
SUIT: Final[tuple[int, ...]] = tuple(c // 13 for c in DECK)
IS_RED: Final[tuple[bool, ...]] = tuple(SUIT[c] in (HEARTS, DIAMONDS) for c in DECK)
CARD_NAMES: Final[tuple[str, ...]] = tuple(RANKS[RANK[c] - 1] + SUITS[SUIT[c]] for c in DECK)

#: ``ACCEPTS[c]``: the cards that may be placed on ``c`` in a column
#: (one rank lower, opposite colour); empty for an Ace.
ACCEPTS: Final[tuple[tuple[Card, ...], ...]] = tuple(
    tuple(
        make_card(RANK[c] - 1, s)
        for s in range(4)
        if RANK[c] > ACE and IS_RED[make_card(1, s)] != IS_RED[c]
    )
    for c in DECK
)

KINGS: Final[tuple[Card, ...]] = tuple(make_card(KING, s) for s in range(4))

_BY_NAME: Final[dict[str, Card]] = {name: c for c, name in enumerate(CARD_NAMES)}
_BY_NAME.update({"10" + SUITS[SUIT[c]]: c for c in DECK if RANK[c] == 10})


#: The white space a parser ignores around a card, a destination or a deal code: what
#: ``str.strip()`` removes from ASCII text. Input is ASCII only, so that the patterns
#: below (the OpenAPI schema's) describe exactly what the parsers take.
ASCII_SPACE: Final = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "
_SPACE: Final = r"[\t\n\x0b\x0c\r\x1c-\x1f ]*"


def any_case(word: str) -> str:
    """A regular expression for ``word`` in any case (``t1`` → ``[Tt]1``): the
    patterns are for JSON Schema too, which has no case-insensitive flag."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in word)


def spaced(pattern: str) -> str:
    """The whole text is ``pattern``, with white space around it that a parser strips."""
    return f"^{_SPACE}{pattern}{_SPACE}$"


#: What :func:`parse_card` takes (``"9s"``, ``" 10H "``); pinned by tests/config/test_api_contract.py.
CARD_PATTERN: Final = spaced("(?:[2-9AaTtJjQqKk]|10)[SsHhDdCc]")


def card_name(card: Card) -> str:
    """Wire notation of a card: ``"9S"``, ``"TH"``, ``"AC"``."""
    return CARD_NAMES[card]


def parse_card(text: str) -> Card:
    """Parse wire notation, case-insensitively (``"th"``, ``"10H"`` and ``"TH"`` are
    the same card), ASCII only. Raises :class:`ValueError` for anything else."""
    # ASCII only: Unicode case mapping would turn "ſ" (long s) into "S".
    card = _BY_NAME.get(text.strip().upper()) if isinstance(text, str) and text.isascii() else None
    if card is None:
        raise ValueError(f"{text!r} is not a card: use a rank of A23456789TJQK and a suit of SHDC, e.g. 9S")
    return card


def fits_on(card: Card, target: Card) -> bool:
    """Whether ``card`` may go on the face-up ``target`` in a column."""
    return RANK[target] == RANK[card] + 1 and IS_RED[target] != IS_RED[card]
