"""Compact binary form of a game, for storage.

``to_bytes(game)`` is the live position in at most 90 bytes; with
``history=True`` the undo records follow (9 bytes each, at most 100), so a stored game
can still undo. Layout (little-endian), version 1:

=====  ======  ==========================================================
bytes  type    content
=====  ======  ==========================================================
1      u8      format version (1)
1      u8      flags: 1 draw three, 2 Vegas, 4 ranked, 8 won, 16 history dropped
14     u8×14   per column: card count, face-down count
3      u8×3    stock count, waste count, waste fan
4      u8×4    cards on each foundation (♠ ♥ ♦ ♣)
2      i16     score
2      u16     recycles (passes)
4      u32     moves counter
7      u56     earned-points bitmask (bit ``c``: card ``c`` has scored on a foundation)
n      u8×n    cards: columns bottom → top, stock (bottom → next drawn), waste (bottom → top)
=====  ======  ==========================================================

The deal code is not part of it: the service stores the code in its own column.
"""

from __future__ import annotations

import struct
from typing import Final

from .deal import DealCode, Scoring
from .game import DRAW, MOVE, RECYCLE, UNDO_LIMIT, Game

VERSION: Final = 1
_HEADER: Final = struct.Struct("<BB14B3B4BhHI7s")
_RECORD: Final = struct.Struct("<BBBBBBhb")
_KINDS: Final = (DRAW, RECYCLE, MOVE)


def to_bytes(game: Game, *, history: bool = False) -> bytes:
    flags = (
        (game.draw == 3) | (game.vegas << 1) | (game.ranked << 2) | (game.won << 3)
        | (game.history_dropped << 4)
    )
    piles: list[int] = []
    for col, down in zip(game.columns, game.down):
        piles += (len(col), down)
    header = _HEADER.pack(
        VERSION, flags, *piles, len(game.stock), len(game.waste), game.fan, *game.foundations,
        game.score, game.passes, game.moves, game.earned.to_bytes(7, "little"),
    )
    cards = bytes([c for col in game.columns for c in col] + game.stock + game.waste)
    if not history:
        return header + cards
    records = b"".join(
        _RECORD.pack(_KINDS.index(kind), src, dst, count, flipped, fan, score, earned)
        for kind, src, dst, count, flipped, fan, score, earned in game.history
    )
    return header + cards + bytes([len(game.history)]) + records


def from_bytes(data: bytes, *, code: DealCode | None = None) -> Game:
    """Rebuild a game from :func:`to_bytes`; raises :class:`ValueError` on corrupt
    data."""
    try:
        fields = _HEADER.unpack_from(data)
    except struct.error as exc:
        raise ValueError("truncated game state") from exc
    version, flags = fields[0], fields[1]
    if version != VERSION:
        raise ValueError(f"unknown game state version {version}")
    piles = fields[2:16]
    stock_len, waste_len, fan = fields[16:19]
    foundations = list(fields[19:23])
    score, passes, moves, earned = fields[23:27]
    offset = _HEADER.size
    columns, down = [], []
    for i in range(7):
        length = piles[2 * i]
        columns.append(list(data[offset:offset + length]))
        down.append(piles[2 * i + 1])
        offset += length
    stock = list(data[offset:offset + stock_len])
    offset += stock_len
    waste = list(data[offset:offset + waste_len])
    offset += waste_len
    cards = sorted([c for col in columns for c in col] + stock + waste
                   + [s * 13 + r for s in range(4) for r in range(foundations[s])])
    if cards != list(range(52)) or any(d > max(len(c) - 1, 0) for c, d in zip(columns, down)):
        raise ValueError("corrupt game state: the cards do not add up")
    game = Game(columns, down, stock, draw=3 if flags & 1 else 1,
                scoring=Scoring.VEGAS if flags & 2 else Scoring.NORMAL, ranked=bool(flags & 4), code=code)
    game.waste = waste
    game.fan = fan
    game.foundations = foundations
    game.score, game.passes, game.moves = score, passes, moves
    game.earned = int.from_bytes(earned, "little")
    game.won = bool(flags & 8)
    game.history_dropped = bool(flags & 16)
    if offset < len(data):
        count = data[offset]
        offset += 1
        if count > UNDO_LIMIT or len(data) != offset + count * _RECORD.size:
            raise ValueError("corrupt game state: bad undo history")
        for i in range(count):
            kind, src, dst, n, flipped, fan, score, earned = _RECORD.unpack_from(data, offset + i * _RECORD.size)
            if kind >= len(_KINDS):
                raise ValueError("corrupt game state: bad undo record")
            game.history.append((_KINDS[kind], src, dst, n, bool(flipped), fan, score, earned))
    elif offset != len(data):
        raise ValueError("corrupt game state: trailing bytes")
    return game
