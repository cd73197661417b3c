// Mallory web client: plain ES modules, no build step.
// Every stored text (messages, labels, snippets) is rendered with textContent, never as
// HTML; the only links ever produced are obsidian://open?… and same-origin /?msg=<id>.

import { confirmAction } from "./confirm.js";
import { ConversationList } from "./conversations.js";
import { api, el, isTyping, messageIdOf } from "./dom.js";
import {
  markForgotten, markJudged, rememberedSnippet, rememberSnippet, removeCitationsOf,
  renderMessage, showWithdrawn, wasForgotten,
} from "./messages.js";
import { InspectorView } from "./inspect.js";
import { startMenu } from "./menu.js";
import { MemoryViews } from "./memories.js";
import { PrivacyControls } from "./privacy.js";
import { SearchView } from "./search.js";
import { StatusPanel, vaultsOf } from "./status.js";

export { safeHref } from "./dom.js";

export const APP_VERSION = "0.2.0";
const PAGE = 30;
const MSG_ID = /^[A-Za-z0-9_.:-]{1,100}$/;

const $ = (id) => document.getElementById(id);
const els = {
  intro: $("empty"), messages: $("messages"), input: $("input"), send: $("send"), composer: $("composer"),
  error: $("error"), notice: $("notice"), status: $("status"), newChat: $("new-chat"),
};

// `opening` counts conversation loads, so that only the latest one renders.
const state = { conversationId: null, nextBefore: null, older: null, opening: 0 };

// Sent with every message and stored raw (messages.context), for later classification.
function clientContext() {
  return { client: "mallory-web", version: APP_VERSION,
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, locale: navigator.language };
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

function sidebarNote(text) { els.status.textContent = text; }

function clearMessages() {
  els.messages.replaceChildren();
  state.nextBefore = null;
}

const privacy = new PrivacyControls({
  toggle: $("incognito"), toggleLabel: $("incognito-toggle"), banner: $("incognito-banner"),
  pauseBanner: $("pause-banner"), pauseText: $("pause-text"), pauseButton: $("pause-memory"),
  hooks: { changed: () => status.refresh(), error: showError },
});

const status = new StatusPanel({ facts: $("status-facts"), warning: $("stale-warning"),
  vaults: $("status-vaults"), onStatus: (s) => privacy.renderPause(s.memory) });

const conversations = new ConversationList({
  list: $("conversations"), scroller: $("conversation-scroll"), more: $("conversations-more"),
  hooks: {
    current: () => state.conversationId,
    error: sidebarNote,
    open: (id) => {
      history.pushState({}, "", "/");
      els.notice.hidden = true;
      openConversation(id).catch((e) => showError(e.message));
    },
    deleted: (id, withdrawn) => {
      if (id === state.conversationId) newConversation();
      else showWithdrawn(els.messages, withdrawn);
      status.refresh();
    },
  },
});

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

// False when a later open (a double click, another link) took over meanwhile.
async function openConversation(id, { scrollToEnd = true } = {}) {
  const opening = ++state.opening;
  state.conversationId = id;
  clearMessages();
  conversations.markCurrent(id);
  const item = conversations.item(id);
  privacy.showConversation(Boolean(item && item.dataset.incognito === "true"));
  const page = await api(`/api/conversations/${encodeURIComponent(id)}/messages?limit=${PAGE}`);
  if (opening !== state.opening) return false;
  els.messages.append(...page.messages.slice().reverse().map(renderMessage));
  state.nextBefore = page.next_before;
  if (scrollToEnd) els.messages.scrollTop = els.messages.scrollHeight;
  return true;
}

function newConversation() {
  state.opening += 1;
  state.conversationId = null;
  clearMessages();
  els.messages.append(els.intro);
  conversations.markCurrent(null);
  privacy.showConversation(null);
  history.pushState({}, "", "/");
}

function findMessage(id) {
  return [...els.messages.querySelectorAll("[data-message-id]")]
    .find((node) => node.dataset.messageId === id) || null;
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
    if (error.status === 404 && wasForgotten(id)) {
      showNotice("You deleted this message: Mallory has forgotten it and will not find " +
        "or recall it again.", null);
    } else {
      showNotice(error.status === 404
        ? "That message could not be found; it may have been deleted."
        : `Could not open that message: ${error.message}`, rememberedSnippet(id));
    }
    return;
  }
  if (!(await openConversation(found.conversation_id, { scrollToEnd: false }))) return;
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

function followMessageLink(href, snippet) {
  const id = messageIdOf(href);
  rememberSnippet(id, snippet);
  history.pushState({}, "", href);
  openDeepLink(id);
}

async function send(event) {
  event.preventDefault();
  const content = els.input.value.trim();
  if (!content || els.send.disabled) return;
  showError("");
  els.send.disabled = true;
  const opening = state.opening;  // the view this message is sent from
  const pending = el("article", { className: "message pending" },
    el("div", { className: "meta", text: "Mallory" }),
    el("div", { className: "content", text: "Mallory is thinking…" }));
  if (!state.conversationId) els.messages.replaceChildren();
  els.messages.append(pending);
  els.messages.scrollTop = els.messages.scrollHeight;
  try {
    const body = { content, context: clientContext() };
    if (state.conversationId) body.conversation_id = state.conversationId;
    else if (privacy.wantsIncognito()) body.incognito = true;
    const result = await api("/api/chat", { method: "POST", body: JSON.stringify(body) });
    pending.remove();
    if (els.input.value.trim() === content) els.input.value = "";  // only once it is stored
    if (opening === state.opening) {  // else the owner moved on: the list shows the reply
      if (state.conversationId !== result.conversation_id) {
        state.conversationId = result.conversation_id;
        clearMessages();
        privacy.showConversation(result.incognito === true);
      }
      els.messages.append(renderMessage(result.user_message),
        renderMessage(result.assistant_message));
      els.messages.scrollTop = els.messages.scrollHeight;
    }
    if (result.proposed_memory) memories.propose(result.proposed_memory, result.user_message.id);
    conversations.refreshTop();
    status.refresh();
  } catch (error) {
    pending.remove();
    showError(`Mallory could not answer: ${error.message}. Your message is still in the box.`);
  } finally {
    els.send.disabled = false;
    els.input.focus();
  }
}

async function deleteMessage(article) {
  const id = article.dataset.messageId;
  const ok = await confirmAction({
    heading: "Delete this message?",
    body: "Mallory will forget it: it leaves search and is never recalled again. Her " +
      "answers given with it in view (her reply to it, answers that recalled it, and " +
      "answers that quoted those) are withdrawn too: their text is removed. This cannot " +
      "be undone.",
    action: "Delete message",
  });
  if (!ok) return;
  let withdrawn = [];
  try {
    const result = await api(`/api/messages/${encodeURIComponent(id)}`, { method: "DELETE" });
    withdrawn = result.withdrawn_ids || [];
  } catch (error) {
    if (error.status !== 404) { showError(`Could not delete the message: ${error.message}`); return; }
  }
  markForgotten(id);
  article.remove();
  removeCitationsOf(els.messages, id);
  showWithdrawn(els.messages, withdrawn);
  els.input.focus();
  conversations.refreshTop();
  status.refresh();
}

async function judgeSource(button) {
  const article = button.closest("article[data-message-id]");
  const body = { message_id: article.dataset.messageId, n: Number(button.dataset.sourceN),
    judgment: button.dataset.feedback };
  button.disabled = true;
  try {
    await api("/api/feedback", { method: "POST", body: JSON.stringify(body) });
    markJudged(button);
    showError("");
  } catch (error) {
    showError(`Could not record your feedback: ${error.message}`);
  } finally {
    button.disabled = false;
  }
}

function onMessagesClick(event) {
  const keep = event.target.closest("button[data-remember-message]");
  if (keep) {
    const article = keep.closest("article[data-message-id]");
    memories.propose(article.querySelector(".content").textContent, article.dataset.messageId);
    return;
  }
  const why = event.target.closest("button[data-inspect-answer]");
  if (why) { inspector.inspectAnswer(why.dataset.inspectAnswer); return; }
  const remove = event.target.closest("button[data-delete-message]");
  if (remove) { deleteMessage(remove.closest("article[data-message-id]")); return; }
  const judge = event.target.closest("button[data-feedback]");
  if (judge) { judgeSource(judge); return; }
  const link = event.target.closest("a[data-source-kind='message']");
  if (!link) return;
  event.preventDefault();
  followMessageLink(link.getAttribute("href"), link.dataset.snippet);
}

const inspector = new InspectorView({
  dialog: $("inspector"), title: $("inspector-title"), summary: $("inspector-summary"),
  replay: $("inspector-replay"), candidates: $("inspector-candidates"), form: $("missing-form"),
  result: $("missing-result"), hooks: { vaults: () => vaultsOf(status.last) },
});

const memories = new MemoryViews({
  approve: $("remember"), approveForm: $("remember-form"), fact: $("remember-fact"),
  page: $("memories"), list: $("memories-list"), state: $("memories-state"),
  hooks: {
    saved: () => { sidebarNote("Saved to your memories."); status.refresh(); },
    changed: (withdrawn) => { showWithdrawn(els.messages, withdrawn); status.refresh(); },
    error: showError,
    openLink: (href) => followMessageLink(href, null),
  },
});

const search = new SearchView({
  dialog: $("search-view"), form: $("search-form"), input: $("search-input"),
  results: $("search-results"), state: $("search-state"), sources: $("search-source"),
  vaultLabel: $("search-vault-label"), vault: $("search-vault"), inspect: $("search-inspect"),
  hooks: { vaults: () => vaultsOf(status.last), openMessage: (id, href, snippet) => {
    followMessageLink(href, snippet);
  }, inspect: (params) => inspector.inspectSearch(params) },
});

function onShortcut(event) {
  const modK = (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "k";
  const slash = event.key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey &&
    !isTyping(event.target);
  if (!modK && !slash) return;
  if (document.getElementById("confirm").open || inspector.isOpen || $("remember").open ||
      $("memories").open) return;
  event.preventDefault();
  search.open();
}

function start() {
  els.composer.addEventListener("submit", send);
  els.input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) send(event);
  });
  els.messages.addEventListener("scroll", () => {
    if (els.messages.scrollTop < 80) loadOlder().catch((e) => showError(e.message));
  });
  els.messages.addEventListener("click", onMessagesClick);
  els.newChat.addEventListener("click", () => { newConversation(); els.input.focus(); });
  $("open-search").addEventListener("click", () => search.open());
  $("resume-memory").addEventListener("click", () => privacy.setPaused(false));
  $("open-memories").addEventListener("click", () => memories.open());
  document.addEventListener("keydown", onShortcut);
  window.addEventListener("popstate", () => {
    const id = new URLSearchParams(location.search).get("msg");
    if (id !== null) openDeepLink(id);
  });
  privacy.showConversation(null);
  startMenu();
  conversations.refreshTop();
  status.start();
  const id = new URLSearchParams(location.search).get("msg");
  if (id !== null) openDeepLink(id);
}

start();
