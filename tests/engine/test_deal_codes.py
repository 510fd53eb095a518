"""Deal codes and the version-1 shuffle (RULES.md "Deal codes", docs/deal-codes.md).

``tests/golden/deals.json`` was generated once from the engine and is the source of
truth from now on: a ``KL1`` code must deal exactly the same cards forever. Never
regenerate it to make a test pass.

Plain pytest: nothing here touches Django or the database.
"""

from __future__ import annotations

import base64
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import DealCode, DealCodeError, Game, Scoring, card_name, deal_json, layout, shuffled_deck
from engine.deal import MAX_DEAL_NUMBER, decode_number, encode_number, splitmix64

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "deals.json"
REFERENCE_JS = Path(__file__).resolve().parents[1] / "deal_reference.js"
DOC = ROOT / "docs" / "deal-codes.md"

MODES = [(1, Scoring.NORMAL), (1, Scoring.VEGAS), (3, Scoring.NORMAL), (3, Scoring.VEGAS)]
MODE_TEXT = {(1, Scoring.NORMAL): "D1N", (1, Scoring.VEGAS): "D1V", (3, Scoring.NORMAL): "D3N", (3, Scoring.VEGAS): "D3V"}
CODE_PATTERN = re.compile(r"KL1-D[13][NV]-[A-Z2-7]{7}")


def _numbers(count: int, seed: int) -> list[int]:
    """Edge numbers plus a reproducible spread over the whole range."""
    edges = [0, 1, 2, 5, 6, 7, 31, 32, 33, 1023, 1024, 2**20, 2**30, 2**34 - 1, 2**34, MAX_DEAL_NUMBER - 1, MAX_DEAL_NUMBER]
    rng = random.Random(seed)
    spread = [rng.randrange(MAX_DEAL_NUMBER + 1) for _ in range(count - len(edges))]
    return edges + spread


def _names(cards) -> list[str]:
    return [card_name(c) for c in cards]


# --------------------------------------------------------------------------- golden


def _golden() -> list[dict]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))["deals"]


def test_golden_file_covers_the_required_codes():
    deals = _golden()
    codes = [d["code"] for d in deals]
    assert len(deals) >= 24
    assert len(set(codes)) == len(codes), "duplicate codes in the golden file"
    for required in ("KL1-D1N-AAAAAAA", "KL1-D1N-AAAAAAG", "KL1-D3V-7777777"):
        assert required in codes
    assert {code.split("-")[1] for code in codes} == {"D1N", "D1V", "D3N", "D3V"}
    for mode in ("D1N", "D1V", "D3N", "D3V"):
        assert sum(code.split("-")[1] == mode for code in codes) >= 5, mode


@pytest.mark.parametrize("expected", _golden(), ids=lambda d: d["code"])
def test_engine_deals_the_golden_layout(expected):
    assert deal_json(Game.new(expected["code"])) == expected


@pytest.mark.parametrize("expected", _golden(), ids=lambda d: d["code"])
def test_golden_layouts_are_well_formed(expected):
    code = DealCode.parse(expected["code"])
    assert str(code) == expected["code"]
    assert expected["draw"] == code.draw
    assert expected["scoring"] == code.scoring.value
    assert [len(col) for col in expected["tableau"]] == [1, 2, 3, 4, 5, 6, 7]
    assert len(expected["stock"]) == 24
    cards = [c for col in expected["tableau"] for c in col] + expected["stock"]
    assert sorted(cards) == sorted(card_name(c) for c in range(52))


def test_mode_does_not_change_the_cards():
    for number in (0, 6, 123456789, MAX_DEAL_NUMBER):
        layouts = []
        for draw, scoring in MODES:
            view = deal_json(Game.new(DealCode(number, draw, scoring)))
            layouts.append((view["tableau"], view["stock"]))
        assert all(each == layouts[0] for each in layouts)


# ---------------------------------------------------------------- format and parse


def test_deal_code_6_formats_as_in_the_rule_book():
    assert str(DealCode(6)) == "KL1-D1N-AAAAAAG"
    assert DealCode.parse("KL1-D1N-AAAAAAG") == DealCode(6, 1, Scoring.NORMAL)
    assert str(DealCode(0)) == "KL1-D1N-AAAAAAA"
    assert str(DealCode(MAX_DEAL_NUMBER, 3, Scoring.VEGAS)) == "KL1-D3V-7777777"
    assert str(DealCode(32, 3, Scoring.NORMAL)) == "KL1-D3N-AAAAABA"
    assert str(DealCode(2**34, 1, Scoring.VEGAS)) == "KL1-D1V-QAAAAAA"
    assert MAX_DEAL_NUMBER == 2**35 - 1


@pytest.mark.parametrize("draw,scoring", MODES)
def test_format_parse_round_trip(draw, scoring):
    for number in _numbers(500, seed=draw * 10 + (scoring is Scoring.VEGAS)):
        code = DealCode(number, draw, scoring)
        text = str(code)
        assert CODE_PATTERN.fullmatch(text), text
        assert text.split("-")[1] == MODE_TEXT[(draw, scoring)]
        assert DealCode.parse(text) == code
        assert str(DealCode.parse(text)) == text
        assert decode_number(encode_number(number)) == number


def test_number_is_big_endian_rfc4648_base32():
    # 5 big-endian bytes (40 bits) in standard base 32 = 8 characters, the first of
    # which is always "A" because the number has only 35 bits.
    for number in _numbers(1000, seed=4648):
        standard = base64.b32encode(number.to_bytes(5, "big")).decode()
        assert standard[0] == "A"
        assert encode_number(number) == standard[1:]
        assert decode_number(standard[1:]) == number
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    for value, char in enumerate(alphabet):
        assert encode_number(value) == "AAAAAA" + char
        assert encode_number(value * 32**6) == char + "AAAAAA"


@pytest.mark.parametrize(
    "text",
    [
        "kl1-d3v-aaaaaag",
        "Kl1-D3v-aAaAaAg",
        "  KL1-D3V-AAAAAAG  ",
        "\tkl1-d3v-aaaaaag\n",
        "\r\n KL1-d3V-AAAAAAg \t",
    ],
)
def test_parse_ignores_case_and_surrounding_white_space(text):
    code = DealCode.parse(text)
    assert code == DealCode(6, 3, Scoring.VEGAS)
    assert str(code) == "KL1-D3V-AAAAAAG"


def test_lower_case_round_trip_for_many_numbers():
    for number in _numbers(300, seed=7):
        for draw, scoring in MODES:
            code = DealCode(number, draw, scoring)
            assert DealCode.parse(f"  {str(code).lower()}\n") == code


# (input, expected .code, a pattern the detail sentence must contain: the wrong part)
BAD_CODES = [
    (None, "bad_format", r"deal code is a string"),
    (6, "bad_format", r"deal code is a string"),
    (b"KL1-D1N-AAAAAAG", "bad_format", r"deal code is a string"),
    (["KL1", "D1N", "AAAAAAG"], "bad_format", r"deal code is a string"),
    ("", "bad_format", r"three parts"),
    ("   ", "bad_format", r"three parts"),
    ("KL1-D1N", "bad_format", r"three parts"),
    ("KL1-D1NAAAAAAG", "bad_format", r"three parts"),
    ("KL1 D1N AAAAAAG", "bad_format", r"three parts"),
    ("KL1-D1N-AAAAAAG-X", "bad_format", r"three parts"),
    ("KL2-D1N-AAAAAAG", "bad_prefix", r"start with KL1.*'KL2'"),
    ("kl2-d1n-aaaaaag", "bad_prefix", r"start with KL1.*'KL2'"),
    ("KL-D1N-AAAAAAG", "bad_prefix", r"start with KL1"),
    ("XX1-D1N-AAAAAAG", "bad_prefix", r"start with KL1"),
    ("KL1-X1N-AAAAAAG", "bad_mode", r"middle part.*'X1N'"),
    ("KL1-D1-AAAAAAG", "bad_mode", r"middle part.*'D1'"),
    ("KL1-D1NN-AAAAAAG", "bad_mode", r"middle part"),
    ("KL1--AAAAAAG", "bad_mode", r"middle part"),
    ("KL1-D2N-AAAAAAG", "bad_draw", r"draw.*'D2'"),
    ("KL1-D0V-AAAAAAG", "bad_draw", r"draw.*'D0'"),
    ("KL1-DXN-AAAAAAG", "bad_draw", r"draw"),
    ("KL1-D1X-AAAAAAG", "bad_scoring", r"scoring.*'X'"),
    ("KL1-D3S-AAAAAAG", "bad_scoring", r"scoring.*'S'"),
    ("KL1-D1N-AAAAAG", "bad_number", r"deal number.*7 characters.*not 6"),
    ("KL1-D1N-AAAAAAAA", "bad_number", r"deal number.*7 characters.*not 8"),
    ("KL1-D1N-", "bad_number", r"deal number.*not 0"),
    ("KL1-D1N-AAAAAA1", "bad_number", r"'1' is not a deal-number character"),
    ("KL1-D1N-AAAAAA8", "bad_number", r"'8' is not a deal-number character"),
    ("KL1-D1N-0AAAAAA", "bad_number", r"'0' is not a deal-number character"),
    ("KL1-D1N-AAA9AAA", "bad_number", r"'9' is not a deal-number character"),
    ("KL1-D1N-AAA AAA", "bad_number", r"deal-number character"),
    ("KL1-D1N-AAAAAA=", "bad_number", r"deal-number character"),
]


@pytest.mark.parametrize("text,error,detail", BAD_CODES, ids=[repr(t[0]) for t in BAD_CODES])
def test_bad_codes_are_refused_naming_the_part(text, error, detail):
    with pytest.raises(DealCodeError) as caught:
        DealCode.parse(text)
    exc = caught.value
    assert isinstance(exc, ValueError)
    assert exc.code == error
    assert re.search(detail, exc.detail), exc.detail
    assert str(exc) == exc.detail


def test_parts_are_checked_in_order():
    # The first wrong part is the one reported.
    assert _error("KL2-D2X-AAAAAA1") == "bad_prefix"
    assert _error("KL1-D2X-AAAAAA1") == "bad_draw"
    assert _error("KL1-D1X-AAAAAA1") == "bad_scoring"
    assert _error("KL1-D1N-AAAAAA1") == "bad_number"


def _error(text) -> str:
    with pytest.raises(DealCodeError) as caught:
        DealCode.parse(text)
    return caught.value.code


@pytest.mark.parametrize(
    "args,error",
    [
        ((-1,), "bad_number"),
        ((MAX_DEAL_NUMBER + 1,), "bad_number"),
        ((2**64,), "bad_number"),
        ((6, 2), "bad_draw"),
        ((6, 0), "bad_draw"),
    ],
)
def test_constructor_validates(args, error):
    with pytest.raises(DealCodeError) as caught:
        DealCode(*args)
    assert caught.value.code == error


@pytest.mark.parametrize("text", ["KL1-D1N-AAAAAß", "KL1-D1N-AAAAAAı", "KL1-D1N-AAAAAﬀ"])
def test_non_ascii_letters_are_refused(text):
    # Unicode case mapping would turn "ß" into "SS": refuse non-ASCII outright.
    with pytest.raises(DealCodeError) as caught:
        DealCode.parse(text)
    assert caught.value.code == "bad_format"


@pytest.mark.parametrize("args, code", [
    ((6, True), "bad_draw"), ((6.0,), "bad_number"), ((6, 1, "x"), "bad_scoring"), ((-1,), "bad_number"),
])
def test_constructor_checks_types(args, code):
    with pytest.raises(DealCodeError) as caught:
        DealCode(*args)
    assert caught.value.code == code


# ---------------------------------------------------------------------- random


@pytest.mark.parametrize("draw,scoring", MODES)
def test_random_gives_valid_in_range_codes(draw, scoring):
    seen = set()
    for _ in range(200):
        code = DealCode.random(draw, scoring)
        assert isinstance(code.number, int)
        assert 0 <= code.number <= MAX_DEAL_NUMBER
        assert code.draw == draw and code.scoring is scoring
        text = str(code)
        assert CODE_PATTERN.fullmatch(text)
        assert text.split("-")[1] == MODE_TEXT[(draw, scoring)]
        assert DealCode.parse(text) == code
        seen.add(code.number)
    assert len(seen) > 190  # 200 draws from 2^35 numbers: practically never a repeat


def test_random_defaults_to_draw_one_normal():
    code = DealCode.random()
    assert (code.draw, code.scoring) == (1, Scoring.NORMAL)
    assert str(code).startswith("KL1-D1N-")


# --------------------------------------------------------------------- shuffle


def test_splitmix64_reference_values_for_seed_0():
    state, outputs = 0, []
    for _ in range(3):
        state, x = splitmix64(state)
        outputs.append(x)
    assert outputs == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_splitmix64_worked_example_of_the_docs():
    # docs/deal-codes.md, section 3: SplitMix64 seeded with deal number 6.
    state, steps = 6, []
    for _ in range(3):
        state, x = splitmix64(state)
        steps.append((state, x))
    assert steps == [
        (0x9E3779B97F4A7C1B, 0xBD64A5D9ADEFE000),
        (0x3C6EF372FE94F830, 0x72419DB23951DF99),
        (0xDAA66D2C7DDF7445, 0x0E6C7D0372AA2F46),
    ]
    assert " ".join(_names(shuffled_deck(6))) == (
        "AD 2H 7C 7H 4C 9C 9H JC 3D 5D 6H KH 3C KD 8D 6S JS QD TC 7D 5H 7S 9D KC QS 3S 4D AH "
        "QH JH AS QC 2S 2C 3H 6D 4S 5C 4H KS 8H 8C TS 8S 2D 5S TD AC TH JD 9S 6C"
    )


def test_splitmix64_wraps_around_64_bits():
    state, x = splitmix64(2**64 - 1)
    assert state == (2**64 - 1 + 0x9E3779B97F4A7C15) % 2**64
    assert 0 <= x < 2**64


def test_shuffled_deck_is_a_permutation():
    decks = set()
    for number in _numbers(1000, seed=52):
        deck = shuffled_deck(number)
        assert sorted(deck) == list(range(52)), number
        assert shuffled_deck(number) == deck  # deterministic
        decks.add(tuple(deck))
    assert len(decks) == 1000  # distinct numbers, distinct decks


def test_sorted_deck_order_and_card_index():
    names = [card_name(c) for c in range(52)]
    assert names[:13] == [r + "S" for r in "A23456789TJQK"]
    assert names[13:26] == [r + "H" for r in "A23456789TJQK"]
    assert names[26:39] == [r + "D" for r in "A23456789TJQK"]
    assert names[39:] == [r + "C" for r in "A23456789TJQK"]


def test_layout_deals_row_by_row():
    columns, stock = layout(list(range(52)))
    assert columns == [
        [0],
        [1, 7],
        [2, 8, 13],
        [3, 9, 14, 18],
        [4, 10, 15, 19, 22],
        [5, 11, 16, 20, 23, 25],
        [6, 12, 17, 21, 24, 26, 27],
    ]
    assert stock == list(range(28, 52))


def test_layout_sizes_and_face_up_cards():
    for number in _numbers(300, seed=28):
        deck = shuffled_deck(number)
        columns, stock = layout(deck)
        assert [len(col) for col in columns] == [1, 2, 3, 4, 5, 6, 7]
        assert all(1 <= len(col) <= 7 for col in columns)
        assert len(stock) == 24
        assert stock == deck[28:]  # the 29th card of the shuffled deck is drawn first
        game = Game.new(DealCode(number))
        assert game.down == [0, 1, 2, 3, 4, 5, 6]  # only the top card of each column is up
        assert game.columns == columns
        view = deal_json(game)
        assert view["stock"] == _names(stock)
        assert view["tableau"] == [_names(col) for col in columns]


def test_first_draw_takes_the_29th_card():
    from engine import Move, public_view

    game = Game.new("KL1-D1N-AAAAAAG")
    game.apply(Move.from_json({"type": "draw"}))
    assert public_view(game)["waste"]["visible"] == [card_name(shuffled_deck(6)[28])] == ["QH"]


# ---------------------------------------------------- the JavaScript reference


def _node() -> str:
    node = shutil.which("node") or (shutil.which("node", path="/usr/bin:/usr/local/bin"))
    assert node, (
        "Node.js is required to check the JavaScript reference implementation of "
        "docs/deal-codes.md (tests/deal_reference.js): install `node` and put it on PATH"
    )
    return node


def test_javascript_reference_matches_engine():
    numbers = _numbers(200, seed=2024)
    assert 0 in numbers and 6 in numbers and MAX_DEAL_NUMBER in numbers
    # Half as decimal numbers, half as deal codes in all four modes (checks the
    # reference base-32 decoding too).
    inputs = []
    for k, number in enumerate(numbers):
        if k % 2 == 0:
            inputs.append(str(number))
        else:
            draw, scoring = MODES[(k // 2) % 4]
            inputs.append(str(DealCode(number, draw, scoring)))
    inputs += ["KL1-D1N-AAAAAAG", "KL1-D3V-7777777", "KL1-D1N-AAAAAAA"]

    result = subprocess.run(
        [_node(), str(REFERENCE_JS), *inputs],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)
    assert len(output) == len(inputs)
    for given, item in zip(inputs, output):
        number = int(given) if given.isdigit() else DealCode.parse(given).number
        assert item["input"] == given
        assert item["number"] == number, given
        assert item["deck"] == _names(shuffled_deck(number)), given
        view = deal_json(Game.new(DealCode(number)))
        assert item["tableau"] == view["tableau"], given
        assert item["stock"] == view["stock"], given


def test_docs_reference_block_is_the_checked_code():
    script = REFERENCE_JS.read_text(encoding="utf-8")
    match = re.search(r"// BEGIN REFERENCE IMPLEMENTATION\n(.*?)\n// END REFERENCE IMPLEMENTATION", script, re.S)
    assert match, "markers missing in tests/deal_reference.js"
    doc = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```js\n(.*?)\n```", doc, re.S)
    assert blocks == [match.group(1)], "docs/deal-codes.md's JavaScript block differs from tests/deal_reference.js"
