#!/usr/bin/env bash
# Installs what Mallory Recall needs on a fresh Debian machine; safe to run again.
#   scripts/setup.sh          Python deps (uv) — enough to run locally (lexical recall)
#   scripts/setup.sh --embed  also the optional local embedder (onnxruntime, tokenizers,
#                             all-MiniLM-L6-v2 int8: about 130 MB); EMBED=1 does the same,
#                             so `EMBED=1 ./scripts/run` serves with it installed
#   scripts/setup.sh --test   also the embedder (tests need it), Node tools (npm ci:
#                             Miniflare, wrangler, Pyodide), the Pyodide wheels of the
#                             Worker's dependencies (.pyodide-wheels/) and chromium
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=false
want_embed=false
[[ "${EMBED:-0}" == "1" ]] && want_embed=true
for arg in "$@"; do
  case "$arg" in
    --test) want_test=true; want_embed=true ;;
    --embed) want_embed=true ;;
    *) echo "setup.sh: unknown option $arg (expected --test or --embed)" >&2; exit 2 ;;
  esac
done

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
apt_updated=false
apt_install() {
  if ! $apt_updated; then as_root apt-get update -qq; apt_updated=true; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! command -v python3 >/dev/null; then
  say "installing python3"; apt_install python3 python3-pip python3-venv
fi
if ! command -v uv >/dev/null; then
  say "installing uv"
  python3 -m pip install --quiet --user uv 2>/dev/null || python3 -m pip install --quiet uv \
    || python3 -m pip install --quiet --break-system-packages uv
  export PATH="$HOME/.local/bin:$PATH"
fi
npm_pid=""
if $want_test; then
  if ! command -v npm >/dev/null; then
    say "installing Node.js and npm"; apt_install nodejs npm
  fi
  # npm ci runs beside uv sync: neither needs the other. The Pyodide wheels need both (the
  # lock file of the npm package pyodide, and Python).
  say "Node tools (npm ci: Miniflare, wrangler, Pyodide, Node 22), beside uv sync"
  npm ci --no-audit --no-fund --loglevel=error &
  npm_pid=$!
  # A failed uv sync ends the script: npm ci must not go on writing node_modules after it.
  trap '[[ -n "$npm_pid" ]] && kill "$npm_pid" 2>/dev/null' EXIT
fi
if $want_embed; then
  say "Python dependencies with the local embedder (uv sync --group embed)"
  uv sync --frozen --quiet --group embed
else
  say "Python dependencies (uv sync)"
  uv sync --frozen --quiet
fi
if $want_test; then
  wait "$npm_pid" || { echo "setup.sh: npm ci failed" >&2; exit 1; }
  npm_pid=""
  trap - EXIT
  say "Pyodide wheels at uv.lock's versions (.pyodide-wheels/; skipped when current)"
  uv run --frozen --no-sync python scripts/pyodide_wheels.py
  if ! command -v chromium >/dev/null; then
    say "installing chromium (headless browser tests)"; apt_install chromium
  fi
fi
