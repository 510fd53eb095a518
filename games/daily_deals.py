"""The deal of the day: one per draw mode, the same for everyone, derived from a server
secret and the date (or drawn from the proven-winnable pool), its code public once
the day is over."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from engine import MAX_DEAL_NUMBER, DealCode
from games.models import DailyDeal, Game, SolvedDeal


def daily_secret() -> bytes:
    secret = getattr(settings, "DAILY_SECRET", None) or settings.SECRET_KEY
    return hashlib.sha256(b"klondike-daily:" + secret.encode()).digest()


def daily_deal_number(date: dt.date, draw: int) -> int:
    """HMAC-SHA256 of the date and draw under the server secret: unpredictable
    without the secret, the same for everyone."""
    digest = hmac.new(daily_secret(), f"{date.isoformat()}:D{draw}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % (MAX_DEAL_NUMBER + 1)


def daily_pool(draw: int) -> Any:
    """Proven-winnable deals nobody has seen: none handed out already (to a winnable
    game or an earlier day, whose code is public now) nor one any game was dealt (by
    its code, say). A winnable game never takes the last ``DAILY_RESERVE`` of them
    (games.winnable_pool), so winnable games do not drain the daily deals."""
    return (SolvedDeal.objects.filter(draw=draw, scoring="normal", result=SolvedDeal.Result.WIN, handed_out_at=None)
            .exclude(deal_number__in=DailyDeal.objects.filter(draw=draw).values("deal_number"))
            .exclude(deal_number__in=Game.objects.filter(draw=draw, scoring="normal").values("deal_number")))


def daily_deal(date: dt.date, draw: int) -> DailyDeal:
    """The day's deal, fixed the first time it is asked for. Drawn from the pool of
    proven-winnable deals when there is one (``klondike pool``, the winnable top-ups)."""
    daily = DailyDeal.objects.filter(date=date, draw=draw).first()
    if daily is None:
        with transaction.atomic():
            number = _claim_daily_number(date, draw)
            daily, created = DailyDeal.objects.get_or_create(
                date=date, draw=draw, defaults={"deal_number": number, "code": str(DealCode(number, draw))})
            if not created:  # another request fixed the day first: give the claimed deal back
                transaction.set_rollback(True)
    return daily


def _claim_daily_number(date: dt.date, draw: int) -> int:
    """The day's pool deal, marked handed out in the caller's transaction: the mark
    waits for (or beats) a winnable game taking the same deal, so no deal is both.
    Without a pool, the number derived from the secret itself."""
    number = daily_deal_number(date, draw)
    pool = daily_pool(draw).order_by("deal_number").values_list("pk", "deal_number")
    for _attempt in range(5):
        size = pool.count()
        if not size:
            break
        pk, pool_number = pool[number % size]
        if SolvedDeal.objects.filter(pk=pk, handed_out_at=None).update(handed_out_at=timezone.now()):
            return pool_number
    return number


def today() -> dt.date:
    return timezone.now().date()
