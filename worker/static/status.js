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
  if (typeof vault.notes === "number") parts.push(`${count(vault.notes)} notes`);
  if (typeof vault.last_sync_at === "string") {
    parts.push(`synced ${syncedText(vault.last_sync_at, vault.staleness_seconds)}`);
  }
  return el("li", { className: vault.stale === true ? "vault stale" : "vault",
    "data-vault": vault.name, title: vault.last_sync_at ? formatTime(vault.last_sync_at) : null },
  el("span", { className: "vault-name", text: vault.name }),
  el("span", { className: "vault-facts", text: parts.join(" · ") }),
  vault.stale === true ? el("span", { className: "badge", text: "stale" }) : null);
}

export function vaultsOf(status) {
  const vaults = status && Array.isArray(status.vaults) ? status.vaults : [];
  return vaults.filter((v) => v && typeof v.name === "string" && v.name);
}

export class StatusPanel {
  constructor({ facts, warning, vaults }) {
    Object.assign(this, { facts, warning, vaults });
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
    this.last = s;
    const corpora = s.corpora || {};
    const rows = [
      ...fact("Notes", count(corpora.notes)),
      ...fact("Messages", count(corpora.messages)),
      ...fact("Last sync", syncedText(s.last_sync_at, s.staleness_seconds),
        s.last_sync_at ? formatTime(s.last_sync_at) : null),
    ];
    if (typeof s.retrieval_mode === "string") rows.push(...fact("Retrieval", s.retrieval_mode));
    this.facts.replaceChildren(...rows);
    this.warning.textContent = s.stale ? staleText(s) : "";
    this.warning.hidden = !s.stale;
    const vaults = vaultsOf(s);
    this.vaults.replaceChildren(...vaults.map(vaultRow));
    this.vaults.hidden = vaults.length === 0;
  }
}
