"""The import contract in pyproject.toml (import-linter): the code keeps it, and it
catches an import that breaks it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("engine", "solver", "api", "database", "games", "races", "realtime", "leaderboards", "accounts", "config",
            "frontend")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=120)


def copy_of_the_code(folder: Path) -> Path:
    shutil.copy(ROOT / "pyproject.toml", folder)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, folder / package, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    return folder


def add_line(path: Path, line: str) -> None:
    path.write_text(path.read_text() + f"\n{line}  # noqa\n")


def test_the_code_keeps_the_import_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_the_contract_catches_an_engine_that_imports_django_or_the_service(tmp_path: Path) -> None:
    code = copy_of_the_code(tmp_path)
    add_line(code / "engine" / "cards.py", "import django")
    add_line(code / "engine" / "cards.py", "from games import models")
    result = lint_imports(code)
    assert result.returncode != 0
    assert "The engine is pure Python: no Django, nothing of the service BROKEN" in result.stdout
    assert "engine.cards -> django" in result.stdout and "engine.cards -> games.models" in result.stdout


def test_the_contract_catches_an_upward_import_and_a_cycle(tmp_path: Path) -> None:
    code = copy_of_the_code(tmp_path)
    # The move service calling the boards again, and the engine's moves importing its game.
    add_line(code / "games" / "services.py", "from leaderboards import services as boards")
    add_line(code / "engine" / "moves.py", "from engine import game")
    result = lint_imports(code)
    assert result.returncode != 0
    assert "Arrows point one way" in result.stdout and "games.services -> leaderboards.services" in result.stdout
    assert "No cycles are allowed in engine" in result.stdout


def test_the_contract_catches_a_room_that_imports_the_wiring_or_sends_to_the_channel_layer(tmp_path: Path) -> None:
    code = copy_of_the_code(tmp_path)
    # The circle this project had: the API conventions in config, config importing games.
    add_line(code / "api" / "input.py", "from config import settings")
    add_line(code / "games" / "services.py", "from channels.layers import get_channel_layer")
    result = lint_imports(code)
    assert result.returncode != 0
    assert "api.input -> config.settings" in result.stdout
    assert "Only the socket tier talks to the channel layer: the rest emit domain events BROKEN" in result.stdout
    assert "games.services -> channels (l." in result.stdout
