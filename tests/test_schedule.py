"""tests/schedule.py: the long poles it names exist, and they are dealt first."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.schedule import LONG_POLES


def test_every_long_pole_is_a_test_file() -> None:
    missing = [path for path in LONG_POLES if not (ROOT / path).is_file()]
    assert missing == []
    assert len(set(LONG_POLES)) == len(LONG_POLES)


def test_the_session_collects_the_long_poles_first(request: pytest.FixtureRequest) -> None:
    files: list[str] = []
    for item in request.session.items:
        path = item.path.relative_to(ROOT).as_posix()
        if not files or files[-1] != path:
            files.append(path)
    collected = [path for path in LONG_POLES if path in files]
    assert files[:len(collected)] == collected
    assert len(files) == len(set(files))  # each file's tests stay together
