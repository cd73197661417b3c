// Mallory web client: plain ES module, no build step.
// Every stored text (messages, labels, snippets) is rendered with textContent, never as
// HTML; the only links ever produced are obsidian://open?… and same-origin /?msg=<id>.

const PAGE = 30;
const MSG_ID = /^[A-Za-z0-9_.:-]{1,100}$/;
const SNIPPETS_KEY = "mallory.sourceSnippets";

const $ = (id) => document.getElementById(id);
const els = {
  messages: $("messages"), empty: $("empty"), input: $("input"), send: $("send"),
  composer: $("composer"), error: $("error"), notice: $("notice"),
  conversations: $("conversations"), status: $("status"), newChat: $("new-chat"),
};

const state = { conversationId: null, nextBefore: null, older: null };

class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

async function api(path, options = {}) {
  const response = await fetch(path, {
    ...options, headers: { "content-type": "application/json", ...(options.headers || {}) },
  });
  let body = null;
  try { body = await response.json(); } catch { /* not JSON */ }
  if (!response.ok) {
    const error = (body && body.error) || {};
    throw new ApiError(response.status, error.code || "http_error",
      error.message || `request failed (${response.status})`);
  }
  return body;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "className") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

export function safeHref(href) {
  if (typeof href !== "string") return null;
  if (href.startsWith("obsidian://open?")) return href;
  if (/^\/\?msg=[A-Za-z0-9%._:~-]{1,300}$/.test(href)) return href;
  return null;
}

function formatTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString(undefined,
    { dateStyle: "medium", timeStyle: "short" });
}

function sourceAnchor(messageId, n) { return `src-${messageId}-${n}`; }

// Message text with [n] markers that point at a footer source turned into links.
function renderContent(message) {
  const container = el("div", { className: "content" });
  const numbers = new Set((message.sources || []).map((s) => s.n));
  const pattern = /\[(\d{1,3})\]/g;
  let last = 0;
  for (const match of message.content.matchAll(pattern)) {
    const n = Number(match[1]);
    if (!numbers.has(n)) continue;
    container.append(document.createTextNode(message.content.slice(last, match.index)));
    container.append(el("a", { className: "cite", href: `#${sourceAnchor(message.id, n)}`,
      "data-cite": String(n), text: `[${n}]` }));
    last = match.index + match[0].length;
  }
  container.append(document.createTextNode(message.content.slice(last)));
  return container;
}

function renderSources(message) {
  if (!message.sources || message.sources.length === 0) return null;
  const list = el("ol");
  for (const source of message.sources) {
    const href = safeHref(source.href);
    const kind = source.kind === "note" ? "note" : "message";
    const label = href
      ? el("a", { href, "data-source-kind": kind, "data-snippet": source.snippet, text: source.label })
      : el("span", { text: source.label });
    list.append(el("li", { id: sourceAnchor(message.id, source.n), value: String(source.n) },
      el("span", { className: "kind", text: kind === "note" ? "Note" : "Chat" }), label,
      el("span", { className: "snippet", text: source.snippet })));
  }
  return el("footer", { className: "sources", "data-sources": "" },
    el("h4", { text: "Sources" }), list);
}

function renderMessage(message) {
  const who = message.role === "user" ? "You" : "Mallory";
  return el("article", { className: "message", "data-message-id": message.id,
    "data-role": message.role },
    el("div", { className: "meta", text: `${who} · ${formatTime(message.created_at)}` }),
    renderContent(message), renderSources(message));
}

function showError(text) {
  els.error.textContent = text;
  els.error.hidden = !text;
}

function showNotice(text, snippet) {
  els.notice.replaceChildren(el("span", { text }));
  if (snippet) els.notice.append(el("blockquote", { text: snippet }));
  els.notice.hidden = false;
}

function clearMessages() {
  els.messages.replaceChildren();
  state.nextBefore = null;
}

async function loadConversations() {
  try {
    const { conversations } = await api("/api/conversations?limit=50");
    els.conversations.replaceChildren(...conversations.map((c) => el("li", {},
      el("button", { type: "button", "data-conversation-id": c.id, title: c.title,
        "aria-current": c.id === state.conversationId ? "true" : null, text: c.title || "Untitled" }))));
  } catch (error) {
    els.status.textContent = `Could not load conversations: ${error.message}`;
  }
}

async function fetchOlder() {
  const conversation = state.conversationId;
  const page = await api(`/api/conversations/${encodeURIComponent(conversation)}` +
    `/messages?limit=${PAGE}&before=${state.nextBefore}`);
  if (conversation !== state.conversationId) return false;  // the owner moved on
  const previousHeight = els.messages.scrollHeight;
  els.messages.prepend(...page.messages.slice().reverse().map(renderMessage));
  els.messages.scrollTop += els.messages.scrollHeight - previousHeight;
  state.nextBefore = page.next_before;
  return true;
}

// One page request at a time; callers that arrive meanwhile share it.
function loadOlder() {
  if (!state.conversationId || state.nextBefore === null) return Promise.resolve(false);
  if (!state.older) state.older = fetchOlder().finally(() => { state.older = null; });
  return state.older;
}

async function openConversation(id, { scrollToEnd = true } = {}) {
  state.conversationId = id;
  clearMessages();
  const page = await api(`/api/conversations/${encodeURIComponent(id)}/messages?limit=${PAGE}`);
  els.messages.append(...page.messages.slice().reverse().map(renderMessage));
  state.nextBefore = page.next_before;
  if (scrollToEnd) els.messages.scrollTop = els.messages.scrollHeight;
  for (const button of els.conversations.querySelectorAll("button")) {
    button.setAttribute("aria-current", button.dataset.conversationId === id ? "true" : "false");
  }
}

function findMessage(id) {
  return [...els.messages.querySelectorAll("[data-message-id]")]
    .find((node) => node.dataset.messageId === id) || null;
}

function rememberedSnippet(id) {
  try { return JSON.parse(sessionStorage.getItem(SNIPPETS_KEY) || "{}")[id] || null; }
  catch { return null; }
}

// /?msg=<id>: open the message's conversation, page back until it is loaded, scroll to it.
async function openDeepLink(id) {
  els.notice.hidden = true;
  if (!MSG_ID.test(id)) {
    showNotice("That link does not point at a message.", null);
    return;
  }
  let found;
  try {
    found = await api(`/api/messages/${encodeURIComponent(id)}`);
  } catch (error) {
    const snippet = rememberedSnippet(id);
    showNotice(error.status === 404
      ? "That message could not be found; it may have been deleted."
      : `Could not open that message: ${error.message}`, snippet);
    return;
  }
  await openConversation(found.conversation_id, { scrollToEnd: false });
  let node = findMessage(id);
  while (!node && state.nextBefore !== null) {
    if (!(await loadOlder())) break;
    node = findMessage(id);
  }
  if (!node) {
    showNotice("That message could not be loaded.", rememberedSnippet(id));
    return;
  }
  for (const other of els.messages.querySelectorAll('[aria-current="true"]')) {
    other.removeAttribute("aria-current");
  }
  node.setAttribute("aria-current", "true");
  node.scrollIntoView({ block: "center" });
}

async function send(event) {
  event.preventDefault();
  const content = els.input.value.trim();
  if (!content || els.send.disabled) return;
  showError("");
  els.send.disabled = true;
  els.empty?.remove();
  const pending = el("article", { className: "message pending", "data-role": "assistant" },
    el("div", { className: "meta", text: "Mallory" }),
    el("div", { className: "content", text: "Mallory is thinking…" }));
  els.messages.append(pending);
  els.messages.scrollTop = els.messages.scrollHeight;
  try {
    const body = { content };
    if (state.conversationId) body.conversation_id = state.conversationId;
    const result = await api("/api/chat", { method: "POST", body: JSON.stringify(body) });
    pending.remove();
    if (state.conversationId !== result.conversation_id) {
      state.conversationId = result.conversation_id;
      clearMessages();
    }
    els.messages.append(renderMessage(result.user_message),
      renderMessage(result.assistant_message));
    els.messages.scrollTop = els.messages.scrollHeight;
    els.input.value = "";  // only once the message is safely stored
    loadConversations();
  } catch (error) {
    pending.remove();
    showError(`Mallory could not answer: ${error.message}. Your message is still in the box.`);
  } finally {
    els.send.disabled = false;
    els.input.focus();
  }
}

function onSourceClick(event) {
  const link = event.target.closest("a[data-source-kind='message']");
  if (!link) return;
  const id = new URLSearchParams(link.getAttribute("href").slice(1)).get("msg");
  try {
    const stash = JSON.parse(sessionStorage.getItem(SNIPPETS_KEY) || "{}");
    stash[id] = link.dataset.snippet;
    sessionStorage.setItem(SNIPPETS_KEY, JSON.stringify(stash));
  } catch { /* storage full or disabled: the link still works */ }
  event.preventDefault();
  history.pushState({}, "", link.getAttribute("href"));
  openDeepLink(id);
}

async function refreshStatus() {
  try {
    const s = await api("/status");
    els.status.textContent = `${s.corpora.notes} notes · ${s.corpora.messages} messages` +
      (s.last_sync_at ? ` · vault synced ${formatTime(s.last_sync_at)}` : " · vault not synced yet");
  } catch { /* status is decoration */ }
}

function start() {
  els.composer.addEventListener("submit", send);
  els.input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) send(event);
  });
  els.messages.addEventListener("scroll", () => {
    if (els.messages.scrollTop < 80) loadOlder().catch((e) => showError(e.message));
  });
  els.messages.addEventListener("click", onSourceClick);
  els.conversations.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-conversation-id]");
    if (!button) return;
    history.pushState({}, "", "/");
    els.notice.hidden = true;
    openConversation(button.dataset.conversationId).catch((e) => showError(e.message));
  });
  els.newChat.addEventListener("click", () => {
    state.conversationId = null;
    clearMessages();
    history.pushState({}, "", "/");
    els.input.focus();
  });
  window.addEventListener("popstate", () => {
    const id = new URLSearchParams(location.search).get("msg");
    if (id !== null) openDeepLink(id);
  });
  loadConversations();
  refreshStatus();
  const id = new URLSearchParams(location.search).get("msg");
  if (id !== null) openDeepLink(id);
}

start();
