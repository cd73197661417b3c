"""shared/ is split by concept into subpackages, and each module's name is a noun no other
module of shared/ uses (README, "What is where"): `from shared.x.names import …` never
leaves a reader wondering which `names` it is."""

from collections import Counter
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"


def test_every_module_name_in_shared_is_unique() -> None:
    names = Counter(p.stem for p in SHARED.rglob("*.py") if p.name != "__init__.py")
    assert len(names) > 40  # the walk found the package
    assert [n for n, count in names.items() if count > 1] == []


def test_shared_holds_packages_only() -> None:
    loose = sorted(p.name for p in SHARED.glob("*.py") if p.name != "__init__.py")
    assert loose == []
