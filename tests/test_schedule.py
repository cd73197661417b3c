"""tests/schedule.py: the long poles it names exist, they are dealt first, and each
ONE_PROCESS folder goes whole to one process."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.schedule import LONG_POLES, ONE_PROCESS, scheduling, scope


def test_every_long_pole_is_a_test_file_or_a_one_process_folder() -> None:
    missing = [path for path in LONG_POLES
               if not (ROOT / path).is_file() and path not in ONE_PROCESS]
    assert missing == []
    assert len(set(LONG_POLES)) == len(LONG_POLES)
    assert all((ROOT / folder / "conftest.py").is_file() for folder in ONE_PROCESS)


def test_the_session_collects_the_long_poles_first(request: pytest.FixtureRequest) -> None:
    units: list[str] = []
    for item in request.session.items:
        unit = scope(item.path.relative_to(ROOT).as_posix())
        if not units or units[-1] != unit:
            units.append(unit)
    collected = [path for path in LONG_POLES if path in units]
    assert units[:len(collected)] == collected
    assert len(units) == len(set(units))  # each file's, and each folder's, tests stay together


def test_a_one_process_folder_is_one_unit_and_other_files_their_own() -> None:
    folder = ONE_PROCESS[0]
    assert scope(f"{folder}/test_a.py::test_x") == folder
    assert scope(f"{folder}/deeper/test_b.py::TestC::test_y[1]") == folder
    assert scope(f"{folder}_not/test_a.py::test_x") == f"{folder}_not/test_a.py"
    assert scope("tests/shared/test_a.py::test_x") == "tests/shared/test_a.py"


def test_the_scheduler_splits_work_by_those_units() -> None:
    pytest.importorskip("xdist", reason="pytest-xdist deals the units; Pyodide has none")
    cls = scheduling()
    sched = cls.__new__(cls)  # its constructor wants live worker nodes; the split needs none
    folder = ONE_PROCESS[0]
    assert sched._split_scope(f"{folder}/test_a.py::test_x") == folder
    assert sched._split_scope("tests/shared/test_a.py::test_x") == "tests/shared/test_a.py"
