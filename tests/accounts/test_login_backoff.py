"""Repeated failed log-ins for one account slow down (accounts/login_guard.py)
without letting an attacker lock the owner out; the Django admin's log-in form has
the same limits as the API's. Real PostgreSQL and Redis (the counters' cache)."""

from __future__ import annotations


import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

from accounts import login_guard

User = get_user_model()
PASSWORD = "correct-horse-battery-7"
ATTACKER, OWNER = "198.51.100.66", "192.0.2.10"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def clean_counters():
    cache.clear()
    yield
    cache.clear()


def login(username: str, password: str, address: str):
    return Client(REMOTE_ADDR=address).post("/api/accounts/login", {"username": username, "password": password},
                                            content_type="application/json")


def fail(username: str, address: str, times: int) -> list[int]:
    return [login(username, "wrong-password", address).status_code for _ in range(times)]


def age_failures(username: str, address: str, seconds: float) -> None:
    """Move the last failure into the past, as if ``seconds`` had gone by."""
    key = login_guard.counter_keys(username, address)[0]
    failures, last = cache.get(key)
    cache.set(key, (failures, last - seconds), 3600)


def test_after_five_failures_an_address_waits_longer_and_longer():
    User.objects.create_user("olga", "", PASSWORD)
    assert fail("olga", ATTACKER, 5) == [400] * 5
    refused = login("olga", PASSWORD, ATTACKER)  # even the right password waits
    assert refused.status_code == 429
    assert refused.json()["error"] == "login_backoff" and refused["Retry-After"] == "2"
    age_failures("olga", ATTACKER, 2)
    assert fail("olga", ATTACKER, 1) == [400]
    assert login("olga", PASSWORD, ATTACKER)["Retry-After"] == "4"
    assert [login_guard.backoff_seconds(n, 5) for n in (4, 5, 6, 7, 14, 40)] == [0, 2, 4, 8, 900, 900]


def test_the_owner_is_not_locked_out_by_an_attackers_failures():
    User.objects.create_user("olga", "", PASSWORD)
    fail("olga", ATTACKER, 5)
    assert login("olga", PASSWORD, ATTACKER).status_code == 429
    assert login("olga", PASSWORD, OWNER).status_code == 200


def test_a_success_clears_the_addresss_failures():
    User.objects.create_user("olga", "", PASSWORD)
    fail("olga", OWNER, 4)
    assert login("olga", PASSWORD, OWNER).status_code == 200
    assert fail("olga", OWNER, 5) == [400] * 5


def test_any_name_makes_a_safe_counter_and_case_does_not_matter():
    fail("Olga", ATTACKER, 5)
    assert login("OLGA", "x-password", ATTACKER).status_code == 429
    odd = "%s %s\u0002\U0010dece:" * 8
    fail(odd, "198.51.100.67", 5)  # another address: the rate per address stays out of it
    assert login(odd, "x-password", "198.51.100.67").json()["error"] == "login_backoff"
    assert all(len(key) < 120 for key in login_guard.counter_keys(odd, ATTACKER))


def test_names_that_do_not_exist_are_counted_alike():
    fail("ghost", ATTACKER, 5)
    body = login("ghost", "x-password", ATTACKER)
    assert body.status_code == 429 and body.json()["error"] == "login_backoff"


def test_an_attack_from_many_addresses_leaves_known_addresses_their_allowance():
    User.objects.create_user("olga", "", PASSWORD)
    assert login("olga", PASSWORD, OWNER).status_code == 200  # the owner's address is known now
    for i in range(login_guard.ATTACK_FAILURES):
        fail("olga", f"203.0.113.{i + 1}", 1)
    # A new address gets one free failure, then waits.
    assert fail("olga", "203.0.113.200", 2) == [400, 429]
    # The owner's known address still has five, and the right password works.
    assert fail("olga", OWNER, 4) == [400] * 4
    assert login("olga", PASSWORD, OWNER).status_code == 200
    # And the first attempt from any address is always allowed.
    assert login("olga", PASSWORD, "192.0.2.99").status_code == 200


def admin_login(address: str, username: str, password: str):
    client = Client(REMOTE_ADDR=address)
    return client, client.post("/admin/login/?next=/admin/", {"username": username, "password": password})


def test_the_admin_log_in_has_the_same_backoff():
    User.objects.create_superuser("root", "root@example.com", PASSWORD)
    for _ in range(5):
        _, response = admin_login(ATTACKER, "root", "wrong-password")
        assert response.status_code == 200  # the form again, with its error
    _, refused = admin_login(ATTACKER, "root", PASSWORD)
    assert refused.status_code == 429 and refused["Retry-After"] == "2"
    client, allowed = admin_login(OWNER, "root", PASSWORD)
    assert allowed.status_code == 302 and client.get("/admin/").status_code == 200


def test_the_admin_log_in_has_the_same_rate_per_address():
    for i in range(10):
        _, response = admin_login(ATTACKER, f"nobody{i}", "wrong-password")
        assert response.status_code == 200
    _, refused = admin_login(ATTACKER, "nobody-else", "wrong-password")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    # The API's log-in shares the address's budget.
    assert login("nobody-else", "wrong-password", ATTACKER).status_code == 429
    _, other = admin_login(OWNER, "nobody", "wrong-password")
    assert other.status_code == 200
