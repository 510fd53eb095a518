#!/usr/bin/env python
"""What the languages cost (docs/i18n.md): per socket message and per page.

    .venv/bin/python bench/i18n.py [--seconds 0.5] [--repeat 5]

A benchmark, not a test: it prints figures and exits 0. One process, one core.

Per message (operations per second, best of ``--repeat``; the baseline is measured in
the same run: ``json.dumps`` of a typical move event, what every socket message costs
anyway):

* **override**: entering and leaving ``translation.override(lang)``, which every
  consumer does around each message it handles (realtime/consumers.py);
* **gettext**: one catalog lookup in Italian;
* **localized Text**: an engine refusal (``engine.text.Text`` with a value) rendered
  in Italian by ``api.texts.localized``, as an error event does;
* **refusal English**: the same refusal's ``str`` (what it cost before).

Per page: the size of each language's JavaScript catalog (``/i18n/catalog/…``),
raw and gzipped. Browsers fetch it once per build (it is cached immutable).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("SECRET_KEY", "bench-only")
os.environ.setdefault("DATABASE_URL", "")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.test import RequestFactory  # noqa: E402
from django.utils import translation  # noqa: E402

from api.texts import localized  # noqa: E402
from engine.text import Text, gettext_noop  # noqa: E402
from frontend.i18n_urls import catalog_version, javascript_catalog  # noqa: E402

EVENT = {"type": "move", "v": 1, "seq": 42, "move": {"type": "move", "card": "9D", "to": "t4"},
         "view": {"score": 35, "moves": 42, "stock": 12, "waste": ["TH", "4C"], "foundations": {"S": 2, "H": 0}}}
REFUSAL = Text(gettext_noop("%(card)s cannot go to its foundation yet: it needs %(needed)s first"),
               card="7H", needed="3H")


def rate(work, seconds: float, repeat: int) -> float:
    best = 0.0
    for _ in range(repeat):
        count, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            for _ in range(1000):
                work()
            count += 1000
        best = max(best, count / elapsed)
    return best


def override() -> None:
    with translation.override("it"):
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    translation.activate("it")
    baseline = rate(lambda: json.dumps(EVENT), args.seconds, args.repeat)
    rows = [("baseline: json.dumps(move event)", baseline),
            ("override(lang) enter+exit", rate(override, args.seconds, args.repeat)),
            ("gettext (it)", rate(lambda: translation.gettext("Leaderboards"), args.seconds, args.repeat)),
            ("localized Text (it)", rate(lambda: localized(REFUSAL), args.seconds, args.repeat)),
            ("refusal in English (str)", rate(lambda: str(REFUSAL), args.seconds, args.repeat))]
    print(f"{'per message':36} {'ops/s':>12} {'time vs baseline':>17}")
    for name, per_second in rows:
        print(f"{name:36} {per_second:12,.0f} {baseline / per_second:16.2f}×")
    print()
    print(f"{'JavaScript catalog':36} {'bytes':>12} {'gzipped':>17}")
    requests = RequestFactory()
    for language in ("en", "it", "es"):
        path = f"/i18n/catalog/{language}/{catalog_version()}.js"
        body = javascript_catalog(requests.get(path), language, catalog_version()).content
        print(f"{language:36} {len(body):12,} {len(gzip.compress(body)):17,}")


if __name__ == "__main__":
    main()
