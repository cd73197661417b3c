// Saved memories (README, "Saved memories"): the approval step before a fact is saved
// (from "Remember that …" or a message's Remember button), and the Memory page that
// lists them, where each can be corrected or deleted.

import { confirmAction } from "./confirm.js";
import { api, el, formatTime } from "./dom.js";

export const MAX_FACT = 500;

export class MemoryViews {
  constructor({ approve, approveForm, fact, page, list, state, hooks }) {
    Object.assign(this, { approve, approveForm, fact, page, list, state, hooks });
    this.source = null;
    approveForm.addEventListener("submit", (event) => this.onApprove(event));
    page.querySelector("[data-close]").addEventListener("click", () => page.close());
    list.addEventListener("click", (event) => this.onListClick(event));
  }

  // Show the proposed fact for the owner to confirm or edit; nothing is saved before.
  propose(text, sourceMessageId) {
    if (this.approve.open) return;
    this.source = sourceMessageId || null;
    this.fact.value = text.trim().slice(0, MAX_FACT);
    this.approve.returnValue = "";
    this.approve.showModal();
    this.fact.focus();
  }

  async onApprove(event) {
    const action = event.submitter ? event.submitter.value : "save";
    if (action !== "save") return;  // the dialog closes itself
    event.preventDefault();
    const fact = this.fact.value.trim();
    if (!fact) return;
    try {
      await api("/api/memories", { method: "POST",
        body: JSON.stringify({ fact, source_message_id: this.source }) });
      this.approve.close("saved");
      this.hooks.saved(fact);
      if (this.page.open) this.refresh();
    } catch (error) {
      this.hooks.error(`Could not save the memory: ${error.message}`);
    }
  }

  async open() {
    if (!this.page.open) this.page.showModal();
    await this.refresh();
  }

  async refresh() {
    this.state.textContent = "Loading…";
    try {
      const page = await api("/api/memories");
      this.list.replaceChildren(...page.memories.map((m) => this.render(m)));
      this.state.textContent = page.memories.length
        ? `${page.memories.length} saved memor${page.memories.length === 1 ? "y" : "ies"}`
        : "No saved memories yet. Say “Remember that …”, or use Remember on a message.";
    } catch (error) {
      this.state.textContent = `Could not load saved memories: ${error.message}`;
    }
  }

  render(m) {
    const source = m.source_href
      ? el("a", { href: m.source_href, "data-memory-source": "", text: "from a message" })
      : null;
    return el("li", { className: "memory", "data-memory-id": m.id },
      el("p", { className: "memory-fact", text: m.fact }),
      el("div", { className: "memory-meta" },
        el("span", { text: `Saved ${formatTime(m.created_at)}` }), source,
        el("button", { type: "button", className: "inspect-button", "data-memory-edit": "",
          text: "Edit" }),
        el("button", { type: "button", className: "inspect-button", "data-memory-delete": "",
          text: "Delete" })));
  }

  onListClick(event) {
    const item = event.target.closest("li[data-memory-id]");
    if (!item) return;
    if (event.target.closest("[data-memory-edit]")) this.edit(item);
    else if (event.target.closest("[data-memory-delete]")) this.remove(item);
    else if (event.target.closest("[data-memory-source]")) {
      event.preventDefault();
      this.page.close();
      this.hooks.openLink(event.target.closest("a").getAttribute("href"));
    }
  }

  edit(item) {
    const factNode = item.querySelector(".memory-fact");
    const input = el("textarea", { className: "memory-edit", maxlength: String(MAX_FACT),
      "aria-label": "Saved memory", rows: "3" });
    input.value = factNode.textContent;
    const save = el("button", { type: "button", className: "inspect-button",
      "data-memory-save": "", text: "Save" });
    const form = el("div", { className: "memory-editing" }, input, save);
    factNode.replaceWith(form);
    input.focus();
    save.addEventListener("click", async () => {
      const fact = input.value.trim();
      if (!fact) return;
      try {
        const edited = await api(`/api/memories/${encodeURIComponent(item.dataset.memoryId)}`,
          { method: "PATCH", body: JSON.stringify({ fact }) });
        item.replaceWith(this.render(edited.memory));
        this.hooks.changed(edited.withdrawn_ids || []);
      } catch (error) {
        this.state.textContent = `Could not save: ${error.message}`;
      }
    });
  }

  async remove(item) {
    const ok = await confirmAction({
      heading: "Delete this saved memory?",
      body: "Mallory will forget it everywhere: it leaves search and is never recalled " +
        "again, and her answers given with it in view are withdrawn.",
      action: "Delete memory",
    });
    if (!ok) return;
    try {
      const gone = await api(`/api/memories/${encodeURIComponent(item.dataset.memoryId)}`,
        { method: "DELETE" });
      item.remove();
      this.hooks.changed(gone.withdrawn_ids || []);
      await this.refresh();
    } catch (error) {
      this.state.textContent = `Could not delete: ${error.message}`;
    }
  }
}
