"""The `mallory-hub` executable as people and cron jobs run it, against a real local
server: progress bars on a terminal (a real pty), plain lines on a pipe, `--json`, and
the service recipes run as systemd and launchd would run them."""

from __future__ import annotations

import json
import os
import plistlib
import pty
import re
import select
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.progress import MIN_ITEMS
from local.thread_server import RunningServer, running_server
from tests.e2e.hubs import HUB, hub_args, status, vault_notes, worker_notes, write

NOTES = MIN_ITEMS + 20  # enough for both phases to draw a bar
ANSI = re.compile(r"\x1b\[")
SUMMARY = re.compile(r"^sent (\d+), unchanged (\d+), deleted (\d+), rejected (\d+), "
                     r"warnings (\d+), elapsed \d+\.\ds")
# What a terminal session has and a cron job does not; rich obeys these, so none leaks in
# from the environment the tests run in.
TERMINAL_ENV = {"TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
RICH_OVERRIDES = ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE",
                  "JUPYTER_COLUMNS", "JUPYTER_LINES")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(tmp_path / "worker.sqlite", token="cli-token") as running:
        yield running


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Field Notes"
    for i in range(NOTES):
        write(root, f"Birds/Sighting {i:03}.md", f"# Sighting {i}\nA wren at feeder {i}.")
    return root


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in RICH_OVERRIDES}
    env.pop("SYNC_TOKEN", None)
    return {**env, **extra}


def run_on_pty(args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (as in a terminal window) and stdout on a
    pipe; returns (exit status, stdout, everything the terminal received)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                            env=env)
    os.close(slave)
    received = bytearray()
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its end
                chunk = b""
            if not chunk:
                break
            received += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    stdout, _ = proc.communicate(timeout=180)
    return proc.returncode, stdout.decode(), received.decode("utf-8", "replace")


def test_on_a_terminal_a_long_sync_draws_bars_for_reading_and_sending(
        server: RunningServer, vault: Path, tmp_path: Path) -> None:
    code, stdout, terminal = run_on_pty(
        hub_args(server, vault, tmp_path / "state"),
        clean_env(SYNC_TOKEN=server.token, **TERMINAL_ENV))
    assert code == 0, terminal
    assert ANSI.search(terminal), terminal  # drawn and erased with cursor controls
    assert "reading" in terminal and "sending" in terminal, terminal
    assert f"{NOTES}/{NOTES}" in terminal, terminal
    [line] = stdout.splitlines()
    summary = SUMMARY.match(line)
    assert summary is not None and summary.groups() == (str(NOTES), "0", "0", "0", "0"), line
    assert worker_notes(server, vault) == vault_notes(vault)


def test_on_a_pipe_there_are_only_plain_lines(server: RunningServer, vault: Path,
                                              tmp_path: Path) -> None:
    (vault / "Broken.md").write_bytes(b"---\ntitle: [unclosed\n---\nbody")
    done = subprocess.run(hub_args(server, vault, tmp_path / "state"), capture_output=True,
                          text=True, timeout=180,
                          env=clean_env(SYNC_TOKEN=server.token, **TERMINAL_ENV))
    assert done.returncode == 3, done.stderr  # synced, with a page rejected
    assert not ANSI.search(done.stdout + done.stderr)
    assert "reading" not in done.stderr and "sending" not in done.stderr
    assert done.stderr.splitlines()[0].startswith("rejected Broken.md: "), done.stderr
    [line] = done.stdout.splitlines()
    summary = SUMMARY.match(line)
    assert summary is not None and summary.groups() == (str(NOTES), "0", "0", "1", "0"), line


def test_json_is_one_object_with_the_counts(server: RunningServer, vault: Path,
                                            tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = clean_env(SYNC_TOKEN=server.token)
    first = subprocess.run(hub_args(server, vault, state, "--json", name="Birding"),
                           capture_output=True, text=True, timeout=180, env=env)
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    [vault_status] = status(server)["vaults"]
    assert report["status"] == "ok" and report["exit_code"] == 0
    assert report["vault"] == {"name": "Birding", "id": vault_status["id"], "path": str(vault)}
    assert (report["sent"], report["deleted"], report["unchanged"], report["rejected"],
            report["warnings"]) == (NOTES, 0, 0, 0, 0)
    assert report["batches"] == 2 and report["duration_s"] > 0 and report["error"] is None

    (vault / "Birds" / "Sighting 000.md").unlink()
    (vault / "Broken.md").write_bytes(b"\xff\xfe not text")
    second = subprocess.run(hub_args(server, vault, state, "--json", name="Birding"),
                            capture_output=True, text=True, timeout=180, env=env)
    # Synced, with a rejected page: not the generic failure 1, so a schedule can take it
    # as success while the page waits for a fix (hub/report.py).
    assert second.returncode == 3 and second.stderr == ""
    report = json.loads(second.stdout)
    assert (report["status"], report["exit_code"], report["synced"]) == ("rejected", 3, True)
    assert (report["sent"], report["deleted"], report["unchanged"], report["rejected"]) == (
        0, 1, NOTES - 1, 1)
    [problem] = report["problems"]
    assert (problem["kind"], problem["path"]) == ("rejected", "Broken.md")


def test_json_reports_a_failed_run_too(server: RunningServer, vault: Path,
                                       tmp_path: Path) -> None:
    wrong = subprocess.run(hub_args(server, vault, tmp_path / "state", "--json"),
                           capture_output=True, text=True, timeout=180,
                           env=clean_env(SYNC_TOKEN="not-the-token"))
    assert wrong.returncode == 2
    report = json.loads(wrong.stdout)
    assert (report["status"], report["exit_code"], report["sent"]) == ("failed", 2, 0)
    assert "refused the sync token" in report["error"]
    missing = subprocess.run(hub_args(server, vault, tmp_path / "state", "--json"),
                             capture_output=True, text=True, timeout=60, env=clean_env())
    assert missing.returncode == 2
    assert "no sync token" in json.loads(missing.stdout)["error"]
    plain = subprocess.run(hub_args(server, vault, tmp_path / "state"), capture_output=True,
                           text=True, timeout=180, env=clean_env(SYNC_TOKEN="not-the-token"))
    assert plain.returncode == 2 and plain.stdout == ""
    assert plain.stderr.startswith("sync failed after "), plain.stderr
    assert "sent 0, unchanged 0" in plain.stderr


def test_the_token_comes_from_a_file_or_the_environment_and_an_argument_warns(
        server: RunningServer, vault: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    env = clean_env(XDG_CONFIG_HOME=str(config))
    token_file = tmp_path / "token"
    token_file.write_text(f"{server.token}\n")
    by_file = subprocess.run(hub_args(server, vault, tmp_path / "s1", "--token-file",
                                      str(token_file)), capture_output=True, text=True,
                             timeout=180, env=env)
    assert by_file.returncode == 0 and by_file.stderr == "", by_file.stderr
    # The service's env file is read when nothing else names a token.
    (config / "mallory-hub").mkdir(parents=True)
    (config / "mallory-hub" / "env").write_text(f"# secrets\nSYNC_TOKEN={server.token}\n")
    by_env_file = subprocess.run(hub_args(server, vault, tmp_path / "s2"), capture_output=True,
                                 text=True, timeout=180, env=env)
    assert by_env_file.returncode == 0, by_env_file.stderr
    by_arg = subprocess.run(hub_args(server, vault, tmp_path / "s3", "--token", server.token),
                            capture_output=True, text=True, timeout=180, env=env)
    assert by_arg.returncode == 0
    assert "--token shows the sync token in the process list" in by_arg.stderr
    assert "--token-file" in by_arg.stderr
    empty = tmp_path / "empty"
    empty.write_text("# nothing here\n")
    refused = subprocess.run(hub_args(server, vault, tmp_path / "s4", "--json", "--token-file",
                                      str(empty)), capture_output=True, text=True, timeout=60,
                             env=env)
    assert refused.returncode == 2 and "holds no token" in json.loads(refused.stdout)["error"]


def service(vault: Path, server: RunningServer, env_file: Path, kind: str,
            *extra: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(HUB), "service", "--vault", str(vault), "--url", server.url,
                           "--env-file", str(env_file), f"--{kind}", *extra],
                          capture_output=True, text=True, timeout=60,
                          env=clean_env(SYNC_TOKEN=server.token))
    assert done.returncode == 0, done.stderr
    assert server.token not in done.stdout + done.stderr  # never inlined, even when set
    return done


def systemd_unquote(word: str) -> str:
    return word.replace("%%", "%").replace("$$", "$")


def env_file_values(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines()
             if line and not line.startswith("#"))
    return dict(pairs)


@pytest.fixture
def odd_vault(tmp_path: Path) -> Path:
    """A vault whose path needs quoting everywhere: spaces, a quote, % and $."""
    root = tmp_path / 'Ann\'s "Vault" 100% $HOME'
    write(root, "Wrens.md", "A wren nests in the ivy.")
    return root


def test_the_systemd_unit_runs_the_hub_with_the_token_from_the_env_file(
        server: RunningServer, odd_vault: Path, tmp_path: Path) -> None:
    env_file = tmp_path / "hub env"
    env_file.write_text(f"SYNC_TOKEN={server.token}\n")
    units = service(odd_vault, server, env_file, "systemd", "--vault-name", "Home 50%",
                    "--output-dir", str(tmp_path / "units"))
    service_text = (tmp_path / "units" / "mallory-hub-home-50.service").read_text()
    timer_text = (tmp_path / "units" / "mallory-hub-home-50.timer").read_text()
    assert "OnUnitActiveSec=900s" in timer_text and "WantedBy=timers.target" in timer_text
    assert "Unit=mallory-hub-home-50.service" in timer_text
    assert f"EnvironmentFile={env_file}" in service_text
    assert "enable --now mallory-hub-home-50.timer" in units.stderr
    [exec_start] = [line.removeprefix("ExecStart=") for line in service_text.splitlines()
                    if line.startswith("ExecStart=")]
    argv = [systemd_unquote(w) for w in shlex.split(exec_start)]
    assert argv[1:] == ["sync", "--vault", str(odd_vault), "--url", server.url,
                        "--vault-name", "Home 50%"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=180,
                          env=clean_env(**env_file_values(env_file)))
    assert done.returncode == 0, done.stderr
    assert worker_notes(server, odd_vault) == vault_notes(odd_vault)
    assert [v["name"] for v in status(server)["vaults"]] == ["Home 50%"]


def test_the_launchd_agent_runs_the_hub_with_the_token_from_the_env_file(
        server: RunningServer, odd_vault: Path, tmp_path: Path) -> None:
    env_file = tmp_path / "env"
    env_file.write_text(f"# the hub's secrets\nSYNC_TOKEN={server.token}\n")
    printed = service(odd_vault, server, env_file, "launchd").stdout
    header, _, body = printed.partition("\n")
    assert header.startswith("# ~/Library/LaunchAgents/com.mallory-recall.hub.")
    agent = plistlib.loads(body.encode())
    assert agent["StartInterval"] == 900 and agent["RunAtLoad"] is True
    # launchd runs ProgramArguments as is, without a shell of its own: so do we.
    done = subprocess.run(agent["ProgramArguments"], capture_output=True, text=True,
                          timeout=180, env=clean_env())
    assert done.returncode == 0, done.stderr
    assert worker_notes(server, odd_vault) == vault_notes(odd_vault)


def test_service_refuses_a_url_that_is_not_http(tmp_path: Path) -> None:
    done = subprocess.run([str(HUB), "service", "--vault", str(tmp_path), "--url",
                           "mallory.example.com", "--systemd"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "--url must be an http(s) URL" in done.stderr
    assert done.stdout == ""
