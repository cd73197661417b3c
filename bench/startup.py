"""How fast the command-line tools answer `--help` (start-up: imports before any work).

    uv run python -m bench.startup [--runs 7]

For `mallory --help` and `mallory-hub --help`, the median and best wall time of fresh
processes, next to a bare `python -c pass` measured the same way (the interpreter's own
start-up, the floor), and the slowest imports `python -X importtime` reports.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {"mallory": "local.cli", "mallory-hub": "hub.cli"}
HELP = "from {module} import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"


def wall_s(args: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - started)
    return times


def slowest_imports(module: str, top: int = 5) -> list[tuple[int, str]]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c",
                           HELP.format(module=module)], capture_output=True, text=True,
                          check=True)
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    floor = wall_s([sys.executable, "-c", "pass"], runs)
    print(f"{'python -c pass':<22} median {statistics.median(floor):.3f} s  "
          f"best {min(floor):.3f} s")
    for name, module in COMMANDS.items():
        times = wall_s([sys.executable, "-c", HELP.format(module=module)], runs)
        print(f"{name + ' --help':<22} median {statistics.median(times):.3f} s  "
              f"best {min(times):.3f} s")
        for cumulative_us, imported in slowest_imports(module):
            print(f"    {cumulative_us / 1000:8.1f} ms  {imported}")


if __name__ == "__main__":
    main()
