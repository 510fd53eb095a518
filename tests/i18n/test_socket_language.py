"""A socket speaks its reader's language (realtime/socket_language.py): error events
carry the same codes with details in the language of the handshake (the language
cookie, else Accept-Language), engine refusals included. Real consumers, PostgreSQL
and the Redis channel layer."""

from __future__ import annotations

import pytest
from django.utils import translation

from tests.realtime_helpers import WS, adb, make_user, new_game, run, ws_headers

pytestmark = pytest.mark.django_db(transaction=True)


def translated(language: str, english: str) -> str:
    with translation.override(language):
        return translation.gettext(english)


async def error_for(path: str, frame: str, headers, **ws_options) -> dict:
    ws = await WS.open(path, headers=headers, **ws_options)
    try:
        await ws.send_text(frame)
        return (await ws.recv_until(lambda message: message["type"] == "error"))[0]
    finally:
        await ws.comm.disconnect()


@pytest.mark.parametrize("language, how", [
    ("it", (b"accept-language", b"it-IT,it;q=0.9,en;q=0.5")),
    ("es", (b"cookie", b"language=es")),
    ("en", (b"accept-language", b"de-DE,de")),
])
def test_a_protocol_error_comes_in_the_readers_language(language, how):
    event = run(lambda: error_for("/ws/lobby/", "{", [*ws_headers(), how]))
    english = "the frame is not valid JSON"
    assert event["error"] == "bad_json"
    assert event["detail"] == translated(language, english)
    assert (event["detail"] == english) == (language == "en")


def test_an_engine_refusal_over_a_socket_is_translated():
    player, token = make_user("giulia")
    game_id = new_game(player)
    headers = [*ws_headers(token), (b"accept-language", b"it")]

    async def scenario():
        ws = await WS.open(f"/ws/games/{game_id}/", headers=headers)
        try:
            await ws.send({"type": "move", "move": {"type": "recycle"}, "seq": 1, "id": "r"})
            return (await ws.recv_until(lambda message: message["type"] == "error"))[0]
        finally:
            await ws.comm.disconnect()

    event = run(scenario)
    english = "the stock still has cards: draw them first"
    assert event["error"] == "stock_not_empty" and event["id"] == "r"
    assert event["detail"] == translated("it", english) != english


def test_a_refused_token_and_a_revoked_one_are_told_in_the_readers_language():
    from accounts import tokens

    player, token = make_user("marta")

    async def scenario():
        refused = WS("/ws/lobby/", headers=[*ws_headers("not-a-token"), (b"accept-language", b"es")])
        await refused.comm.connect(timeout=5)
        refusal = await refused.recv_type("error")
        ws = await WS.open("/ws/lobby/", headers=[*ws_headers(token), (b"accept-language", b"es")])
        await adb(tokens.revoke_all)(player)
        revoked = (await ws.recv_until(lambda message: message["type"] == "error"))[0]
        return refusal, revoked

    refusal, revoked = run(scenario)
    assert refusal["error"] == "authentication_failed"
    assert refusal["detail"] == translated("es", "the token is not valid") != "the token is not valid"
    english = "the token this socket was opened with has been revoked"
    assert revoked["error"] == "token_revoked"
    assert revoked["detail"] == translated("es", english) != english
