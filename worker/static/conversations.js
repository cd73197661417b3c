// The conversation list: pages in as it scrolls (the API's next_before cursor), shows each
// conversation's last-active date, renames inline and deletes after a confirmation.

import { confirmAction } from "./confirm.js";
import { api, el, formatTime, icon, shortDate } from "./dom.js";

const PAGE = 50;
const NEAR_END_PX = 200;
const MAX_TITLE = 200;

export class ConversationList {
  // hooks: open(id), deleted(id), error(text), current() → the open conversation's id
  constructor({ list, scroller, more, hooks }) {
    Object.assign(this, { list, scroller, more, hooks });
    this.nextBefore = null;
    this.loading = null;
    list.addEventListener("click", (event) => this.onClick(event));
    list.addEventListener("dblclick", (event) => {
      const item = event.target.closest("li[data-conversation]");
      if (item && !event.target.closest("form")) this.rename(item);
    });
    scroller.addEventListener("scroll", () => this.loadMoreIfNear());
  }

  item(id) {
    return [...this.list.children].find((li) => li.dataset.conversation === id) || null;
  }

  render(c) {
    const title = c.title || "Untitled";
    const open = el("button", { type: "button", className: "conv-open",
      "data-conversation-id": c.id, title: c.title || "Untitled conversation",
      "aria-current": c.id === this.hooks.current() ? "true" : "false" },
    el("span", { className: "conv-title", text: title }),
    c.incognito === true ? el("span", { className: "badge", text: "incognito" }) : null,
    el("time", { className: "conv-date", datetime: c.updated_at,
      title: `Last active ${formatTime(c.updated_at)}`, text: shortDate(c.updated_at) }));
    const actions = el("span", { className: "conv-actions" },
      el("button", { type: "button", className: "icon-button", "data-action": "rename",
        "aria-label": `Rename “${title}”`, title: "Rename" }, icon("pencil")),
      el("button", { type: "button", className: "icon-button", "data-action": "delete",
        "aria-label": `Delete “${title}”`, title: "Delete" }, icon("trash")));
    return el("li", { "data-conversation": c.id, "data-title": c.title,
      "data-message-count": String(c.message_count ?? ""),
      "data-incognito": c.incognito === true ? "true" : null }, open, actions);
  }

  // The first page, merged on top of what is loaded: activity only ever moves a
  // conversation up, so pages further down stay valid and so does the cursor.
  async refreshTop() {
    try {
      const page = await api(`/api/conversations?limit=${PAGE}`);
      for (const c of page.conversations) this.item(c.id)?.remove();
      this.list.prepend(...page.conversations.map((c) => this.render(c)));
      if (this.list.children.length === page.conversations.length) {
        this.nextBefore = page.next_before;
      }
      this.more.hidden = this.nextBefore === null;
      this.loadMoreIfNear();
    } catch (error) {
      this.hooks.error(`Could not load conversations: ${error.message}`);
    }
  }

  loadMoreIfNear() {
    const { scrollTop, clientHeight, scrollHeight } = this.scroller;
    if (this.nextBefore !== null && scrollTop + clientHeight >= scrollHeight - NEAR_END_PX) {
      this.loadMore();
    }
  }

  // One page request at a time; a page that does not fill the list asks for the next.
  loadMore() {
    if (this.loading || this.nextBefore === null) return this.loading;
    const cursor = encodeURIComponent(this.nextBefore);
    this.loading = api(`/api/conversations?limit=${PAGE}&before=${cursor}`).then((page) => {
      for (const c of page.conversations) if (!this.item(c.id)) this.list.append(this.render(c));
      this.nextBefore = page.next_before;
      this.more.hidden = this.nextBefore === null;
    }).catch((error) => this.hooks.error(`Could not load more conversations: ${error.message}`))
      .finally(() => { this.loading = null; requestAnimationFrame(() => this.loadMoreIfNear()); });
    return this.loading;
  }

  markCurrent(id) {
    for (const button of this.list.querySelectorAll("button[data-conversation-id]")) {
      button.setAttribute("aria-current", button.dataset.conversationId === id ? "true" : "false");
    }
  }

  onClick(event) {
    const item = event.target.closest("li[data-conversation]");
    if (!item) return;
    const action = event.target.closest("button[data-action]")?.dataset.action;
    if (action === "rename") this.rename(item);
    else if (action === "delete") this.remove(item);
    else if (event.target.closest("button[data-conversation-id]")) {
      this.hooks.open(item.dataset.conversation);
    }
  }

  rename(item) {
    const open = item.querySelector(".conv-open");
    if (!open) return;  // already editing
    const before = item.dataset.title || "";
    const input = el("input", { className: "conv-rename-input", value: before,
      maxlength: String(MAX_TITLE), "aria-label": "Conversation title", required: "" });
    const form = el("form", { className: "conv-rename-form" }, input);
    let settled = false;
    const finish = (title) => {
      settled = true;
      this.hooks.error("");
      if (title !== null) {
        item.dataset.title = title;
        open.title = title;
        open.querySelector(".conv-title").textContent = title;
      }
      form.replaceWith(open);
      open.focus();
    };
    const save = async () => {
      if (settled) return;
      const title = input.value.trim();
      if (title === before) { finish(null); return; }
      if (title.length < 1 || title.length > MAX_TITLE) {
        input.setAttribute("aria-invalid", "true");
        this.hooks.error(`A title needs 1 to ${MAX_TITLE} characters.`);
        return;
      }
      settled = true;
      try {
        const saved = await api(`/api/conversations/${encodeURIComponent(item.dataset.conversation)}`,
          { method: "PATCH", body: JSON.stringify({ title }) });
        finish(saved.title);
      } catch (error) {
        settled = false;
        input.setAttribute("aria-invalid", "true");
        this.hooks.error(`Could not rename: ${error.message}`);
      }
    };
    form.addEventListener("submit", (event) => { event.preventDefault(); save(); });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); event.stopPropagation(); finish(null); }
    });
    input.addEventListener("blur", () => { if (!settled) save(); });
    open.replaceWith(form);
    input.focus();
    input.select();
  }

  async remove(item) {
    const title = item.dataset.title || "Untitled";
    const count = Number(item.dataset.messageCount);
    const messages = Number.isFinite(count) && count > 0
      ? ` and its ${count} message${count === 1 ? "" : "s"}` : "";
    const ok = await confirmAction({
      heading: "Delete this conversation?",
      body: `“${title}”${messages} will be forgotten: Mallory will no longer find or ` +
        "recall them. Her answers elsewhere that recalled them (and answers that quoted " +
        "those) are withdrawn: their text is removed. This cannot be undone.",
      action: "Delete conversation",
    });
    if (!ok) return;
    const id = item.dataset.conversation;
    let withdrawn = [];
    try {
      const result = await api(`/api/conversations/${encodeURIComponent(id)}`,
        { method: "DELETE" });
      withdrawn = result.withdrawn_ids || [];
    } catch (error) {
      if (error.status !== 404) { this.hooks.error(`Could not delete: ${error.message}`); return; }
    }
    item.remove();
    this.hooks.deleted(id, withdrawn);
    this.loadMoreIfNear();
  }
}
