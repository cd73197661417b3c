// The sidebar's memory panel, from GET /status: corpus sizes, last sync and staleness (a
// visible warning when stale), one row per vault and the retrieval mode when reported.

import { api, duration, el, formatTime } from "./dom.js";

const REFRESH_MS = 60_000;

function count(n) { return typeof n === "number" ? n.toLocaleString() : "–"; }

function syncedText(iso, seconds) {
  if (!iso) return "never";
  const age = duration(seconds);
  return age === "just now" ? age : age ? `${age} ago` : formatTime(iso);
}

function staleText(s) {
  if (!s.last_sync_at) {
    return "Your vault has never been synced, so notes are missing from memory. " +
      "Start mallory-hub to sync it.";
  }
  const every = duration(s.sync_interval_seconds);
  return `Notes may be out of date: the last vault sync was ${duration(s.staleness_seconds)} ` +
    `ago${every && every !== "just now" ? ` (the hub syncs every ${every})` : ""}. ` +
    "Check that mallory-hub is running.";
}

function fact(term, value, title) {
  return [el("dt", { text: term }), el("dd", { text: value, title })];
}

function vaultRow(vault) {
  const parts = [];
  if (typeof vault.notes === "number") {
    parts.push(`${count(vault.notes)} note${vault.notes === 1 ? "" : "s"}`);
  }
  if (typeof vault.last_sync_at === "string") {
    parts.push(`synced ${syncedText(vault.last_sync_at, vault.staleness_seconds)}`);
  }
  return el("li", { className: vault.stale === true ? "vault stale" : "vault",
    "data-vault": vault.name, title: vault.last_sync_at ? formatTime(vault.last_sync_at) : null },
  el("span", { className: "vault-name", text: vault.name }),
  el("span", { className: "vault-facts", text: parts.join(" · ") }),
  vault.stale === true ? el("span", { className: "badge", text: "stale" }) : null);
}

// `retrieval: {mode, notes?, ...}` in /status; a Worker that predates it reports nothing,
// and then the panel says nothing about retrieval.
export function retrievalMode(status) {
  const r = status && status.retrieval;
  if (!r || typeof r.mode !== "string" || !r.mode) return null;
  const notes = Array.isArray(r.notes) ? r.notes.filter((n) => typeof n === "string") : [];
  // Indexing behind (`retrieval.indexing`): how many units still wait for a vector.
  const pending = r.indexing && r.indexing.behind === true ? r.indexing.pending : null;
  const behind = Number.isInteger(pending) && pending > 0 ? ` · ${count(pending)} to index` : "";
  return { text: r.mode + behind, title: notes.length ? notes.join("\n") : null };
}

export function vaultsOf(status) {
  const vaults = status && Array.isArray(status.vaults) ? status.vaults : [];
  return vaults.filter((v) => v && typeof v.name === "string" && v.name);
}

export class StatusPanel {
  constructor({ facts, warning, vaults, onStatus = () => {} }) {
    Object.assign(this, { facts, warning, vaults, onStatus });
    this.last = null;
  }

  start() {
    this.refresh();
    setInterval(() => this.refresh(), REFRESH_MS);
  }

  async refresh() {
    let s;
    try {
      s = await api("/status");
    } catch (error) {
      this.facts.replaceChildren(...fact("Status", "unavailable", error.message));
      return;
    }
    this.render(s);
  }

  render(s) {
    this.last = s;
    const corpora = s.corpora || {};
    const rows = [
      ...fact("Notes", count(corpora.notes)),
      ...fact("Messages", count(corpora.messages)),
      ...fact("Last sync", syncedText(s.last_sync_at, s.staleness_seconds),
        s.last_sync_at ? formatTime(s.last_sync_at) : null),
    ];
    const mode = retrievalMode(s);
    if (mode) rows.push(...fact("Retrieval", mode.text, mode.title));
    if (s.memory && s.memory.paused === true) {
      rows.push(...fact("Memory", "paused", s.memory.paused_at ? formatTime(s.memory.paused_at)
        : null));
    }
    this.facts.replaceChildren(...rows);
    this.warning.textContent = s.stale ? staleText(s) : "";
    this.warning.hidden = !s.stale;
    const vaults = vaultsOf(s);
    this.vaults.replaceChildren(...vaults.map(vaultRow));
    this.vaults.hidden = vaults.length === 0;
    this.onStatus(s);
  }
}
