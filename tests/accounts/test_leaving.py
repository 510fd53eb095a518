"""Leaving (accounts/deletion.py, accounts/export.py): a deleted account's name appears
nowhere while the races and boards it took part in keep every other player's rank; the
export of an account that played games and races contains them all, streamed by a real
Daphne process."""

from __future__ import annotations

import datetime as dt
import http.cookiejar
import json
import urllib.request

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from accounts.models import AccessToken, ReservedUsername, UserSession
from games import daily_deals
from games import services as games
from games.models import Game
from games.viewer_policy import Actor
from leaderboards.models import Rating, VegasBalance
from races import services as races
from races.models import Race
from tests.account_helpers import api_token

pytestmark = pytest.mark.django_db(transaction=True)

JSON = "application/json"
PASSWORD = "correct horse battery 9"
DEAL = "KL1-D1N-AAAAAAG"


@pytest.fixture(autouse=True)
def fresh_limits():
    cache.clear()


def player(name: str) -> tuple:
    user = get_user_model().objects.create_user(name, f"{name}@example.com", PASSWORD)
    client = Client()
    assert client.post("/api/accounts/login", {"username": name, "password": PASSWORD},
                       content_type=JSON).status_code == 200
    return user, client


def finished_race(users: list) -> Race:
    race = races.create_race(users[0])
    for user in users[1:]:
        races.join_race(race.id, user)
    for user in users:
        races.set_ready(race.id, user)
    Race.objects.filter(pk=race.id).update(starts_at=timezone.now() - dt.timedelta(seconds=1))
    races.play_in_race(race.id, users[1], {"type": "draw"}, 1)
    for user in users:
        races.resign_race(race.id, user)
    return Race.objects.get(pk=race.id)


def played(user, **options) -> Game:
    game = games.create_game(Actor(user_id=user.pk), **options)
    games.submit_move(game.id, Actor(user_id=user.pk), {"type": "draw"}, 1)
    games.resign(game.id, Actor(user_id=user.pk))
    return Game.objects.get(pk=game.id)


def everything_public(client: Client, race: Race) -> str:
    """What anyone can read about the players, as one text."""
    today = daily_deals.today().isoformat()
    pages = [f"/api/races/{race.id}/", "/api/leaderboards/races", "/api/leaderboards/vegas",
             f"/api/leaderboards/deals/{DEAL}", f"/api/leaderboards/daily?date={today}&draw=1", "/api/lobby",
             "/api/races/"]
    return "\n".join(json.dumps(client.get(page).json()) for page in pages)


def ranks(text_of_board: dict) -> list[tuple]:
    return [(row["rank"], row.get("score")) for row in text_of_board["results"]]


def test_a_deleted_account_disappears_and_everyone_elses_results_stay(monkeypatch):
    (leaver, leaver_client), (bea, _), (cal, _) = player("leaver"), player("bea"), player("cal")
    race = finished_race([leaver, bea, cal])
    for user in (leaver, bea, cal):
        played(user, code=DEAL)
        played(user, daily=True)
        played(user, code=None, scoring="vegas")
    Game.objects.filter(daily__isnull=False).update(visible_from=timezone.now() - dt.timedelta(seconds=1))
    live = games.create_game(Actor(user_id=leaver.pk))  # a deal of its own: its resignation joins no board above
    hosted = races.create_race(leaver)
    races.join_race(hosted.id, cal)
    secret = api_token(leaver_client, password=PASSWORD)
    anyone = Client()
    before = {page: anyone.get(page).json() for page in
              (f"/api/leaderboards/deals/{DEAL}", f"/api/races/{race.id}/",
               f"/api/leaderboards/daily?date={daily_deals.today().isoformat()}&draw=1")}
    assert "leaver" in everything_public(anyone, race)

    token_client = Client(HTTP_AUTHORIZATION=f"Token {secret}")
    refused = token_client.post("/api/accounts/delete", {"password": PASSWORD}, content_type=JSON)
    assert (refused.status_code, refused.json()["error"]) == (403, "session_required")
    wrong = leaver_client.post("/api/accounts/delete", {"password": "not my password"}, content_type=JSON)
    assert (wrong.status_code, wrong.json()["error"]) == (400, "wrong_password")
    assert leaver_client.post("/api/accounts/delete", {"password": PASSWORD}, content_type=JSON).status_code == 204

    public = everything_public(anyone, race)
    assert "leaver" not in public.lower()
    placeholder = get_user_model().objects.get(pk=leaver.pk).username
    assert placeholder.startswith("deleted player ") and placeholder in public
    # Every board keeps its rows and ranks, the leaver's under the neutral name.
    for page, then in before.items():
        now = anyone.get(page).json()
        if "results" in then:
            assert ranks(now) == ranks(then), page
        else:
            assert [(e["rank"], e["won"]) for e in now["entries"]] == [(e["rank"], e["won"]) for e in then["entries"]]
    # It left what it was in: the live game resigned, the open race (now Cal's), the boards.
    assert Game.objects.get(pk=live.pk).status == "resigned"
    assert Race.objects.get(pk=hosted.id).host_id == cal.pk
    assert not VegasBalance.objects.filter(user_id=leaver.pk).exists()
    assert not Rating.objects.filter(user_id=leaver.pk).exists()
    assert Rating.objects.filter(user_id__in=[bea.pk, cal.pk]).count() == 2
    assert Game.objects.filter(owner_id=leaver.pk).count() == 5  # a race, three played, one live: none deleted
    # Its profile links nowhere; it cannot sign in; its sessions and tokens are gone.
    assert anyone.get("/api/players/leaver").status_code == 404
    assert anyone.get(f"/api/players/{placeholder}").status_code == 404
    assert anyone.get(f"/api/players/{placeholder}/stats").status_code == 404
    assert leaver_client.get("/api/accounts/me").status_code in (401, 403)
    assert token_client.get("/api/accounts/me").status_code == 401
    assert Client().post("/api/accounts/login", {"username": "leaver", "password": PASSWORD},
                         content_type=JSON).status_code == 400
    assert not UserSession.objects.filter(user_id=leaver.pk).exists()
    assert not AccessToken.objects.filter(user_id=leaver.pk).exists()
    # The name is reserved for a while, then free.
    taken = Client().post("/api/accounts/signup", {"username": "Leaver", "password": PASSWORD}, content_type=JSON)
    assert (taken.status_code, taken.json()["error"]) == (409, "username_taken")
    ReservedUsername.objects.update(free_from=timezone.now() - dt.timedelta(seconds=1))
    assert Client().post("/api/accounts/signup", {"username": "leaver", "password": PASSWORD},
                         content_type=JSON).status_code == 201


def test_the_export_holds_every_game_race_and_setting_and_no_secret(daphne_pool):
    user, client = player("keeper")
    others = [player("o1")[0], player("o2")[0]]
    race = finished_race([user, *others])
    finished = [played(user, code=DEAL) for _ in range(3)] + [played(user, code=None, scoring="vegas")]
    daily = played(user, daily=True)  # over, but its day is not: its deal stays secret
    live = games.create_game(Actor(user_id=user.pk), code=DEAL)
    games.submit_move(live.id, Actor(user_id=user.pk), {"type": "draw"}, 1)
    secret = api_token(client, password=PASSWORD, name="exporter")

    server = daphne_pool[0]
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    login = urllib.request.Request(f"{server.http}/api/accounts/login", method="POST", headers={
        "Content-Type": JSON}, data=json.dumps({"username": "keeper", "password": PASSWORD}).encode())
    assert opener.open(login, timeout=10).status == 200
    with opener.open(f"{server.http}/api/accounts/export", timeout=30) as response:
        assert response.headers["Content-Type"] == "application/json"
        assert "attachment" in response.headers["Content-Disposition"]
        text = response.read().decode()
    data = json.loads(text)
    assert data["format"] == "klondike-account-export/1" and data["profile"]["username"] == "keeper"
    assert data["profile"]["email"] == "keeper@example.com"
    exported = {game["id"]: game for game in data["games"]}
    race_game = Game.objects.get(race=race, owner=user)
    assert set(exported) == {str(g.id) for g in [*finished, live, race_game, daily]}
    for game in finished:
        assert [m["seq"] for m in exported[str(game.id)]["moves_list"]] == [1, 2]
        assert exported[str(game.id)]["code"] == game.code
    assert exported[str(live.id)]["moves_list"] is None  # live: left out until it is over
    # The viewer policy's secrets stay kept: a daily attempt's deal while the day lasts.
    assert exported[str(daily.id)]["code"] is None and exported[str(daily.id)]["moves_list"] is None
    assert daily.code not in text
    assert [entry["race_id"] for entry in data["races"]] == [str(race.id)]
    assert data["vegas"]["games"] == 1 and data["vegas"]["history"]
    assert [t["name"] for t in data["tokens"]] == ["exporter"] and "digest" not in data["tokens"][0]
    assert secret not in text and len(data["sessions"]) == 2
    token_try = Client(HTTP_AUTHORIZATION=f"Token {secret}").get("/api/accounts/export")
    assert (token_try.status_code, token_try.json()["error"]) == (403, "session_required")
