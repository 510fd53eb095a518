"""The domain events bus (games/domain_events.py): when each phase's subscribers run,
against real PostgreSQL transactions."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.db import transaction

from games import domain_events


@dataclass(frozen=True)
class Happened:
    n: int


@pytest.fixture
def heard():
    """Every phase subscribed to ``Happened``; what each heard, in order."""
    log: list[tuple[str, int]] = []
    handlers = {phase: (lambda event, phase=phase: log.append((phase, event.n))) for phase in domain_events.PHASES}
    for phase, handler in handlers.items():
        domain_events.subscribe(Happened, handler, when=phase)
    yield log
    for phase, handler in handlers.items():
        domain_events.unsubscribe(Happened, handler, when=phase)


@pytest.mark.django_db(transaction=True)
def test_in_a_transaction_only_the_in_transaction_subscribers_run_before_the_commit(heard):
    with transaction.atomic():
        domain_events.emit(Happened(1))
        domain_events.emit(Happened(2))
        assert heard == [("in_transaction", 1), ("in_transaction", 2)]
    # After the commit, per event: its news first, then what the commit sets off.
    assert heard[2:] == [("publish", 1), ("after_commit", 1), ("publish", 2), ("after_commit", 2)]


@pytest.mark.django_db(transaction=True)
def test_a_rollback_drops_the_after_commit_subscribers(heard):
    with pytest.raises(RuntimeError):
        with transaction.atomic():
            domain_events.emit(Happened(1))
            raise RuntimeError("refused")
    assert heard == [("in_transaction", 1)]


@pytest.mark.django_db(transaction=True)
def test_news_of_an_event_goes_out_before_that_of_the_events_its_subscribers_emit(heard):
    def emit_another(event: Happened) -> None:
        if event.n == 1:
            domain_events.emit(Happened(10))

    domain_events.subscribe(Happened, emit_another, when=domain_events.IN_TRANSACTION)
    try:
        with transaction.atomic():
            domain_events.emit(Happened(1))
    finally:
        domain_events.unsubscribe(Happened, emit_another, when=domain_events.IN_TRANSACTION)
    published = [n for phase, n in heard if phase == "publish"]
    assert published == [1, 10]


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_every_phase_runs_at_once_in_order(heard):
    domain_events.emit(Happened(3))
    assert heard == [("in_transaction", 3), ("publish", 3), ("after_commit", 3)]


def test_a_phase_that_does_not_exist_is_refused():
    with pytest.raises(ValueError):
        domain_events.subscribe(Happened, print, when="sometime")
