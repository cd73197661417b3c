// The memory search view: GET /api/search as you type (debounced) or on Enter, with
// source and vault filters, highlighted snippets and keyboard navigation.

import { api, el, formatTime, messageIdOf, safeHref, shortDate, standingBadge } from "./dom.js";

const DEBOUNCE_MS = 250;
const LIMIT = 20;
const KINDS = { note: "Note", message: "Chat" };

// The snippet with its [start, end) spans marked. Spans count code points (they come from
// Python), so the text is split into code points, not UTF-16 units.
export function highlighted(snippet, spans) {
  const chars = Array.from(typeof snippet === "string" ? snippet : "");
  const node = el("p", { className: "hit-snippet" });
  const valid = (Array.isArray(spans) ? spans : [])
    .filter((s) => Array.isArray(s) && Number.isInteger(s[0]) && Number.isInteger(s[1]))
    .sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [start, end] of valid) {
    const from = Math.max(start, at);
    const to = Math.min(end, chars.length);
    if (to <= from) continue;
    node.append(document.createTextNode(chars.slice(at, from).join("")),
      el("mark", { text: chars.slice(from, to).join("") }));
    at = to;
  }
  node.append(document.createTextNode(chars.slice(at).join("")));
  return node;
}

function renderHit(hit) {
  const kind = hit.kind === "note" ? "note" : "message";
  const href = safeHref(hit.href);
  const label = hit.label || (kind === "note" ? "Untitled note" : "Conversation");
  const primary = href
    ? el("a", { className: "hit-primary", href, "data-hit-kind": kind, text: label })
    : el("span", { className: "hit-primary", tabindex: "-1", text: label });
  const where = [hit.vault, hit.heading].filter((v) => typeof v === "string" && v);
  const reasons = Array.isArray(hit.reasons) ? hit.reasons.filter((r) => typeof r === "string") : [];
  return el("li", { className: "hit", "data-hit-kind": kind, "data-hit-id": String(hit.id) },
    el("div", { className: "hit-head" },
      el("span", { className: "kind", text: KINDS[kind] }), primary, standingBadge(hit.standing),
      where.length ? el("span", { className: "hit-where", text: where.join(" › ") }) : null,
      el("time", { className: "hit-date", datetime: hit.timestamp,
        title: formatTime(hit.timestamp), text: shortDate(hit.timestamp) })),
    highlighted(hit.snippet, hit.highlights),
    reasons.length ? el("p", { className: "hit-why", text: reasons.join(" · ") }) : null);
}

export class SearchView {
  // hooks: openMessage(id, snippet), vaults() → [{name}] from the last /status,
  // inspect(params): "why these results" for the search shown
  constructor({ dialog, form, input, results, state, sources, vaultLabel, vault, inspect, hooks }) {
    Object.assign(this, { dialog, form, input, results, state, sources, vaultLabel, vault,
      inspect, hooks });
    this.shown = null;  // the parameters of the results on screen
    inspect.addEventListener("click", () => { if (this.shown) hooks.inspect(this.shown); });
    this.timer = null;
    this.controller = null;
    this.returnFocus = null;
    form.addEventListener("submit", (event) => { event.preventDefault(); this.search(); });
    input.addEventListener("input", () => this.schedule());
    sources.addEventListener("change", () => this.search());
    vault.addEventListener("change", () => this.search());
    dialog.addEventListener("keydown", (event) => this.onKey(event));
    dialog.addEventListener("cancel", (event) => { event.preventDefault(); this.close(); });
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) { this.close(); return; }  // the backdrop
      this.onHitClick(event);
    });
    this.showState("idle", "Search your notes and past conversations.");
  }

  get isOpen() { return this.dialog.open; }

  open() {
    if (!this.isOpen) {
      this.returnFocus = document.activeElement;
      this.syncVaults();
      this.dialog.showModal();
    }
    this.input.focus();
    this.input.select();
  }

  close() {
    if (!this.isOpen) return;
    this.dialog.close();
    const target = this.returnFocus;
    this.returnFocus = null;
    if (target instanceof HTMLElement && target.isConnected && target !== document.body) {
      target.focus();
    }
  }

  syncVaults() {
    const names = this.hooks.vaults().map((v) => v.name);
    const chosen = this.vault.value;
    this.vault.replaceChildren(el("option", { value: "", text: "All vaults" }),
      ...names.map((name) => el("option", { value: name, text: name })));
    this.vault.value = names.includes(chosen) ? chosen : "";
    this.vaultLabel.hidden = names.length < 2;
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.search(), DEBOUNCE_MS);
  }

  showState(kind, text) {
    this.state.dataset.state = kind;
    this.state.textContent = text;
  }

  params(q) {
    const params = new URLSearchParams({ q, limit: String(LIMIT),
      source: this.sources.querySelector("input:checked")?.value || "all" });
    if (!this.vaultLabel.hidden && this.vault.value) params.set("vault", this.vault.value);
    // "yesterday", "last week" are read in this zone unless OWNER_TIMEZONE says otherwise.
    const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (tz) params.set("tz", tz);
    return params;
  }

  async search() {
    clearTimeout(this.timer);
    this.controller?.abort();
    const q = this.input.value.trim();
    this.shown = null;
    this.inspect.hidden = true;
    if (!q) {
      this.results.replaceChildren();
      this.showState("idle", "Search your notes and past conversations.");
      return;
    }
    const controller = new AbortController();
    this.controller = controller;
    this.showState("loading", "Searching…");
    this.results.setAttribute("aria-busy", "true");
    try {
      const params = this.params(q);
      const body = await api(`/api/search?${params}`, { signal: controller.signal });
      if (controller !== this.controller) return;
      this.render(q, body);
      this.shown = params;
      this.inspect.hidden = false;
    } catch (error) {
      if (controller !== this.controller || error.name === "AbortError") return;
      this.results.replaceChildren();
      this.showState("error", `Search failed: ${error.message}`);
    } finally {
      if (controller === this.controller) this.results.removeAttribute("aria-busy");
    }
  }

  render(q, body) {
    const hits = Array.isArray(body.hits) ? body.hits : [];
    this.results.replaceChildren(...hits.map(renderHit));
    if (Array.isArray(body.terms) && body.terms.length === 0) {
      this.showState("nothing-to-search", `Nothing to search for: “${q}” has only common ` +
        "words. Add a more specific word.");
    } else if (hits.length === 0) {
      this.showState("empty", `Nothing found for “${q}”.`);
    } else {
      this.showState("results", `${hits.length} result${hits.length === 1 ? "" : "s"}`);
    }
  }

  primaries() { return [...this.results.querySelectorAll(".hit-primary")]; }

  onKey(event) {
    if (event.key === "Escape") { event.preventDefault(); this.close(); return; }
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const items = [this.input, ...this.primaries()];
    if (items.length === 1) return;
    event.preventDefault();
    const at = items.indexOf(document.activeElement);
    const step = event.key === "ArrowDown" ? 1 : -1;
    const next = items[Math.min(Math.max(at + step, 0), items.length - 1)];
    next.focus();
    next.closest(".hit")?.scrollIntoView({ block: "nearest" });
  }

  // A message hit opens in the app; a note hit is an obsidian:// link the browser opens.
  onHitClick(event) {
    const link = event.target.closest("a.hit-primary[data-hit-kind='message']");
    if (!link) return;
    event.preventDefault();
    const id = messageIdOf(link.getAttribute("href"));
    const snippet = link.closest(".hit").querySelector(".hit-snippet").textContent;
    this.returnFocus = null;
    this.close();
    this.hooks.openMessage(id, link.getAttribute("href"), snippet);
  }
}
