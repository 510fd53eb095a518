"""The WebSocket protocol's client frames (docs/realtime.md): which frame types each
socket takes, each field's type, and the bounded parser that turns a text frame into
validated data. Pure Python, no Django: the consumers call :func:`read_frame` once.
Its error details are :class:`engine.text.Text` values (here ``Sentence``, beside the
frame field type ``Text``), which the consumers render in the socket's language."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from engine.text import Text as Sentence, gettext_noop

MAX_FRAME_BYTES = 4096
# Real frames nest two deep (a move inside a frame); json.loads recurses once per level.
MAX_FRAME_DEPTH = 32
MAX_SEQ = 2**31 - 1  # the database's integer, as over REST
MAX_ID_LENGTH = 64
MAX_SAFE_INTEGER = 2**53 - 1  # the largest integer a JavaScript client holds exactly


class FrameError(Exception):
    """A frame the protocol refuses: the error event's code and detail, the field at
    fault (if any) and the frame's ``id`` when it was a valid one."""

    def __init__(self, code: str, detail: str, *, field_name: str | None = None, frame_id: Any = None) -> None:
        super().__init__(detail)
        self.code, self.detail, self.field_name, self.frame_id = code, detail, field_name, frame_id

    def event(self) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "error", "error": self.code, "detail": self.detail}
        if self.field_name is not None:
            message["field"] = self.field_name
        if self.frame_id is not None:
            message["id"] = self.frame_id
        return message


# --- value types: each says what it takes, and refuses anything else ----------------


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in words for an error detail."""
    if value is None:
        # Translators: the JSON value null, as the value a frame sent ("… must be an integer, not null").
        return Sentence(gettext_noop("null"))
    if isinstance(value, bool):
        return Sentence(gettext_noop("a boolean"))
    if isinstance(value, int):
        return Sentence(gettext_noop("an integer"))
    if isinstance(value, float):
        return Sentence(gettext_noop("a number with a fraction"))
    if isinstance(value, str):
        return Sentence(gettext_noop("a string"))
    if isinstance(value, list):
        return Sentence(gettext_noop("an array"))
    return Sentence(gettext_noop("an object"))


@dataclass(frozen=True)
class Integer:
    """A JSON integer: ``true`` is not one, nor is ``"2"`` or ``2.0``."""

    minimum: int
    maximum: int

    def accepts(self, value: Any) -> bool:
        return type(value) is int and self.minimum <= value <= self.maximum

    def describe(self) -> str:
        return Sentence(gettext_noop("an integer from %(minimum)s to %(maximum)s"),
                        minimum=self.minimum, maximum=self.maximum)


@dataclass(frozen=True)
class Boolean:
    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool)

    def describe(self) -> str:
        # Translators: the JSON values true and false: keep them as they are.
        return Sentence(gettext_noop("true or false"))


@dataclass(frozen=True)
class Text:
    max_length: int

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and len(value) <= self.max_length

    def describe(self) -> str:
        return Sentence(gettext_noop("a string of at most %(max_length)s characters"), max_length=self.max_length)


@dataclass(frozen=True)
class Choice:
    """One exact value: ``1`` (not ``true`` or ``1.0``), ``"vegas"``."""

    value: int | str

    def accepts(self, value: Any) -> bool:
        return type(value) is type(self.value) and value == self.value

    def describe(self) -> str:
        return json.dumps(self.value)


@dataclass(frozen=True)
class JSONObject:
    """Any object; its content is checked where it is used (a move: by the engine)."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, dict)

    def describe(self) -> str:
        return Sentence(gettext_noop("an object"))


@dataclass(frozen=True)
class OneOf:
    choices: tuple[Any, ...]

    def accepts(self, value: Any) -> bool:
        return any(choice.accepts(value) for choice in self.choices)

    def describe(self) -> str:
        described = [choice.describe() for choice in self.choices]
        text = described[-1]
        for earlier in reversed(described[:-1]):
            # Translators: two things a field may be, as in "1 or 3", "a string or an integer".
            text = Sentence(gettext_noop("%(first)s or %(second)s"), first=earlier, second=text)
        return text


@dataclass(frozen=True)
class Field:
    kind: Any
    required: bool = False


def required(kind: Any) -> Field:
    return Field(kind, required=True)


def optional(kind: Any) -> Field:
    """May be left out; ``null`` is not a way to leave it out."""
    return Field(kind, required=False)


SEQ = Integer(1, MAX_SEQ)
SINCE = Integer(0, MAX_SEQ)
CORRELATION_ID = OneOf((Text(MAX_ID_LENGTH), Integer(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)))


@dataclass(frozen=True)
class Frame:
    """One frame type: its fields besides ``type``. Every frame may carry an ``id``,
    which its replies (ack, pong, error) echo."""

    fields: Mapping[str, Field] = field(default_factory=dict)

    def all_fields(self) -> dict[str, Field]:
        return {**self.fields, "id": optional(CORRELATION_ID)}


PING = Frame()

# --- the endpoints: which frames each socket takes --------------------------------------

GAME_FRAMES: dict[str, Frame] = {
    "ping": PING,
    "move": Frame({"move": required(JSONObject()), "seq": required(SEQ)}),
    "undo": Frame({"seq": required(SEQ)}),
    "resign": Frame({"seq": optional(SEQ)}),
    "sync": Frame({"since": optional(SINCE)}),
}

RACE_FRAMES: dict[str, Frame] = {
    "ping": PING,
    "join": Frame(),
    "leave": Frame(),
    "ready": Frame({"ready": optional(Boolean())}),
    "move": Frame({"move": required(JSONObject()), "seq": required(SEQ)}),
    "resign": Frame({"seq": optional(SEQ)}),
    "rematch": Frame(),
}

PLAYER_FRAMES: dict[str, Frame] = {
    "ping": PING,
    "queue": Frame({"draw": required(OneOf((Choice(1), Choice(3)))),
                    "scoring": required(OneOf((Choice("normal"), Choice("vegas"))))}),
    "cancel": Frame(),
}

LOBBY_FRAMES: dict[str, Frame] = {"ping": PING, "refresh": Frame()}

LEADERBOARD_FRAMES: dict[str, Frame] = {"ping": PING, "refresh": Frame()}

PING_ONLY: dict[str, Frame] = {"ping": PING}


# --- reading a frame -------------------------------------------------------------------


def too_deep(text: str, limit: int = MAX_FRAME_DEPTH) -> bool:
    """Whether brackets outside strings nest deeper than ``limit`` anywhere: json.loads
    recurses once per level, so this runs first. Up to the first syntax error (where
    json.loads stops) this depth is the parser's own; after it, nothing is parsed."""
    if text.count("[") + text.count("{") <= limit:
        return False  # the usual frame: too few brackets to need a scan
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(text: str) -> Any:
    """The frame's JSON value, bounded in size and depth; ``NaN`` and ``Infinity``
    (which Python's parser accepts) are not JSON."""
    if len(text) > MAX_FRAME_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
        raise FrameError("frame_too_large", Sentence(gettext_noop("frames are limited to %(limit)s bytes"),
                                                     limit=MAX_FRAME_BYTES))
    if too_deep(text):
        raise FrameError("bad_json", Sentence(gettext_noop("the frame is nested too deep (at most %(limit)s levels)"),
                                              limit=MAX_FRAME_DEPTH))
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except ValueError:
        raise FrameError("bad_json", Sentence(gettext_noop("the frame is not valid JSON"))) from None


def read_frame(text: str, frames: Mapping[str, Frame]) -> tuple[str, dict[str, Any]]:
    """The frame's type and its validated fields (``type`` included), or
    :class:`FrameError` with the first thing wrong with it."""
    data = parse_json(text)
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        # Translators: "type" is a JSON key: keep it as it is.
        raise FrameError("bad_message", Sentence(gettext_noop('a message is a JSON object with a "type"')))
    frame_type = data["type"]
    # A bad id is not echoed: the error would carry it back as it came.
    frame_id = data.get("id") if CORRELATION_ID.accepts(data.get("id")) else None
    spec = frames.get(frame_type)
    if spec is None:
        raise FrameError("unknown_type", Sentence(gettext_noop("unknown message type %(type)s"),
                                                  type=repr(frame_type[:40])), frame_id=frame_id)
    problem = field_problem(frame_type, spec, data)
    if problem is not None:
        code, name, detail = problem
        raise FrameError(code, detail, field_name=name, frame_id=frame_id)
    return frame_type, data


def field_problem(frame_type: str, spec: Frame, data: dict[str, Any]) -> tuple[str, str, str] | None:
    """The first field a frame gets wrong, as (error code, field name, detail)."""
    fields = spec.all_fields()
    unknown = sorted(name[:40] for name in data if name != "type" and name not in fields)
    if unknown:
        # Translators: %(type)s is a frame's type ('move'), %(field)s and %(fields)s field names: as sent.
        return "unknown_field", unknown[0], Sentence(gettext_noop("a %(type)s frame has no field %(field)s "
                                                                  "(it takes: %(fields)s)"),
                                                     type=repr(frame_type), field=repr(unknown[0]),
                                                     fields=", ".join(fields))
    for name, spec_field in fields.items():
        if name not in data:
            if spec_field.required:
                # Translators: %(type)s is a frame's type ('move'), %(field)s a field name; %(kind)s what it takes.
                return "missing_field", name, Sentence(gettext_noop("a %(type)s frame needs %(field)s: %(kind)s"),
                                                       type=repr(frame_type), field=repr(name),
                                                       kind=spec_field.kind.describe())
        elif not spec_field.kind.accepts(data[name]):
            # Translators: %(field)s is a field name; %(kind)s what it takes, %(value)s what came ("an integer from 1 to 5, not a string").
            return "bad_field", name, Sentence(gettext_noop("%(field)s must be %(kind)s, not %(value)s"),
                                               field=repr(name), kind=spec_field.kind.describe(),
                                               value=shown(data[name]))
    return None


def shown(value: Any) -> str:
    """A refused value in an error detail: small integers as they are (a range was
    missed), long strings by their length, anything else by its kind."""
    if type(value) is int:
        if abs(value) < 10**15:
            return str(value)
        return Sentence(gettext_noop("an integer of %(digits)s digits"), digits=len(str(abs(value))))
    if isinstance(value, str) and len(value) > MAX_ID_LENGTH:
        return Sentence(gettext_noop("a string of %(length)s characters"), length=len(value))
    return json_kind(value)
