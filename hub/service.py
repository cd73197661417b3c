"""`mallory-hub service`: run `mallory-hub sync` on a schedule, as a systemd user service
and timer (Linux) or a launchd agent (macOS).

The sync token never appears in a unit: systemd reads it from the env file
(`EnvironmentFile=`), and the launchd agent runs a shell that sources the same file before
it starts the hub. The env file holds `SYNC_TOKEN=…` (and, behind Cloudflare Access,
`CF_ACCESS_CLIENT_ID=…` and `CF_ACCESS_CLIENT_SECRET=…`), readable by its owner only.
"""

from __future__ import annotations

import plistlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shared.api.protocol import DEFAULT_SYNC_INTERVAL_S

ENV_KEYS = ("SYNC_TOKEN", "CF_ACCESS_CLIENT_ID", "CF_ACCESS_CLIENT_SECRET")
# The first run waits this long after boot or login, so the network is up.
FIRST_RUN_DELAY_S = 120
LAUNCHD_LABEL = "com.mallory-recall.hub"
# The shell the launchd agent runs: export every variable of the env file ($0), then
# become the hub ("$@"); no value of the file is ever part of the agent's arguments.
SOURCE_THEN_EXEC = 'set -a; . "$0"; set +a; exec "$@"'
_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


def slug(name: str) -> str:
    """A unit-name-safe form of a vault name: 'My Notes' → 'my-notes'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "vault"


@dataclass(frozen=True)
class ServiceSpec:
    executable: Path
    vault: Path
    url: str
    env_file: Path
    vault_name: str | None = None
    state_dir: Path | None = None
    exclude: tuple[str, ...] = ()
    interval_s: int = DEFAULT_SYNC_INTERVAL_S

    def __post_init__(self) -> None:
        if not re.match(r"^https?://[^\s]+$", self.url):
            raise ValueError(f"--url must be an http(s) URL, got {self.url!r}")
        for name in ("executable", "vault", "env_file"):
            if not getattr(self, name).is_absolute():
                raise ValueError(f"{name} must be an absolute path, got {getattr(self, name)}")

    @property
    def name(self) -> str:
        return f"mallory-hub-{slug(self.vault_name or self.vault.name)}"

    def sync_args(self) -> list[str]:
        args = [str(self.executable), "sync", "--vault", str(self.vault), "--url", self.url]
        if self.vault_name:
            args += ["--vault-name", self.vault_name]
        if self.state_dir:
            args += ["--state-dir", str(self.state_dir)]
        for glob in self.exclude:
            args += ["--exclude", glob]
        return args


def _systemd_word(arg: str) -> str:
    """One ExecStart= argument: `%` specifiers and `$` expansions escaped, quoted when it
    holds anything but plain characters (systemd.service(5), "Command lines")."""
    arg = arg.replace("%", "%%").replace("$", "$$")
    if _SAFE.fullmatch(arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _systemd_text(text: str) -> str:
    return text.replace("%", "%%").replace("\n", " ")


def systemd_service(spec: ServiceSpec) -> str:
    vault = spec.vault_name or spec.vault.name
    return "\n".join([
        "[Unit]",
        _systemd_text(f"Description=Mallory hub: push the Obsidian vault {vault} to {spec.url}"),
        "Wants=network-online.target",
        "After=network-online.target",
        "",
        "[Service]",
        "Type=oneshot",
        "# SYNC_TOKEN (and CF_ACCESS_CLIENT_ID/SECRET behind Access) come from here.",
        f"EnvironmentFile={_systemd_text(str(spec.env_file))}",
        "ExecStart=" + " ".join(_systemd_word(a) for a in spec.sync_args()),
        "# Exit 3: synced, some pages rejected (see the journal; not a failure), 5: another",
        "# run was syncing the vault; 2: the run failed, 4: it would delete too many notes.",
        "SuccessExitStatus=3 5",
        "",
    ])


def systemd_timer(spec: ServiceSpec) -> str:
    return "\n".join([
        "[Unit]",
        f"Description=Run {spec.name}.service every {spec.interval_s // 60} minutes",
        "",
        "[Timer]",
        f"OnBootSec={FIRST_RUN_DELAY_S}s",
        f"OnUnitActiveSec={spec.interval_s}s",
        f"Unit={spec.name}.service",
        "",
        "[Install]",
        "WantedBy=timers.target",
        "",
    ])


def launchd_plist(spec: ServiceSpec) -> str:
    logs = Path.home() / "Library" / "Logs" / f"{spec.name}.log"
    agent = {
        "Label": f"{LAUNCHD_LABEL}.{slug(spec.vault_name or spec.vault.name)}",
        "ProgramArguments": ["/bin/sh", "-c", SOURCE_THEN_EXEC, str(spec.env_file),
                             *spec.sync_args()],
        "StartInterval": spec.interval_s,
        "RunAtLoad": True,
        "ProcessType": "Background",
        "StandardOutPath": str(logs),
        "StandardErrorPath": str(logs),
    }
    return plistlib.dumps(agent, sort_keys=False).decode()


def env_file_template() -> str:
    return ("# mallory-hub's secrets: chmod 600 this file.\n"
            f"{ENV_KEYS[0]}=\n"
            "# Behind Cloudflare Access, the hub's service token:\n"
            + "".join(f"# {key}=\n" for key in ENV_KEYS[1:]))


@dataclass(frozen=True)
class UnitFile:
    directory: str  # where it goes, for a user (~ is the home folder)
    name: str
    text: str


def systemd_units(spec: ServiceSpec) -> list[UnitFile]:
    where = "~/.config/systemd/user"
    return [UnitFile(where, f"{spec.name}.service", systemd_service(spec)),
            UnitFile(where, f"{spec.name}.timer", systemd_timer(spec))]


def launchd_units(spec: ServiceSpec) -> list[UnitFile]:
    label = f"{LAUNCHD_LABEL}.{slug(spec.vault_name or spec.vault.name)}"
    return [UnitFile("~/Library/LaunchAgents", f"{label}.plist", launchd_plist(spec))]


def _systemd_start(spec: ServiceSpec, units: list[UnitFile]) -> list[str]:
    return ["systemctl --user daemon-reload && "
            f"systemctl --user enable --now {spec.name}.timer",
            "(`loginctl enable-linger $USER` keeps it running while you are logged out); "
            f"logs: journalctl --user -u {spec.name}.service"]


def _launchd_start(spec: ServiceSpec, units: list[UnitFile]) -> list[str]:
    return [f"launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/{units[0].name}",
            f"logs: ~/Library/Logs/{spec.name}.log"]


@dataclass(frozen=True)
class Scheduler:
    units: Callable[[ServiceSpec], list[UnitFile]]
    start: Callable[[ServiceSpec, list[UnitFile]], list[str]]


SCHEDULERS = {"systemd": Scheduler(systemd_units, _systemd_start),
              "launchd": Scheduler(launchd_units, _launchd_start)}


def instructions(scheduler: Scheduler, spec: ServiceSpec, units: list[UnitFile]) -> str:
    """How to install the units, for stderr (stdout holds only the units)."""
    return "\n".join([
        f"1. Put the token in {spec.env_file} (chmod 600), as:",
        *(f"     {line}" for line in env_file_template().splitlines()),
        f"2. Save {' and '.join(f'{u.directory}/{u.name}' for u in units)}.",
        *(f"{'3.' if i == 0 else '  '} {step}"
          for i, step in enumerate(scheduler.start(spec, units)))])
