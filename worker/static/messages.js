// Rendering a message with its [n] citations and quiet Sources footer, and what the tab
// remembers about messages: the snippet a link showed, and which ids were forgotten here.

import { el, formatTime, icon, messageIdOf, safeHref, standingBadge } from "./dom.js";

const SNIPPETS_KEY = "mallory.sourceSnippets";
const FORGOTTEN_KEY = "mallory.forgotten";

function readStore(key) {
  try { return JSON.parse(sessionStorage.getItem(key) || "{}"); } catch { return {}; }
}

function writeStore(key, value) {
  try { sessionStorage.setItem(key, JSON.stringify(value)); } catch { /* full or disabled */ }
}

export function rememberSnippet(id, snippet) {
  if (typeof snippet !== "string") return;
  writeStore(SNIPPETS_KEY, { ...readStore(SNIPPETS_KEY), [id]: snippet });
}

export function rememberedSnippet(id) { return readStore(SNIPPETS_KEY)[id] || null; }

// A forgotten message's text must not linger, even in this tab's storage.
export function markForgotten(id) {
  const snippets = readStore(SNIPPETS_KEY);
  delete snippets[id];
  writeStore(SNIPPETS_KEY, snippets);
  writeStore(FORGOTTEN_KEY, { ...readStore(FORGOTTEN_KEY), [id]: true });
}

export function wasForgotten(id) { return readStore(FORGOTTEN_KEY)[id] === true; }

function sourceAnchor(messageId, n) { return `src-${messageId}-${n}`; }

// Message text with [n] markers that point at a footer source turned into links.
function renderContent(message) {
  const container = el("div", { className: "content" });
  const numbers = new Set((message.sources || []).map((s) => s.n));
  let last = 0;
  for (const match of message.content.matchAll(/\[(\d{1,3})\]/g)) {
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

const JUDGMENTS = [
  { judgment: "relevant", glyph: "thumbUp", label: (n) => `Source ${n} was useful` },
  { judgment: "irrelevant", glyph: "thumbDown", label: (n) => `Source ${n} was not useful` },
];

// 👍/👎 (thumb icons) on one source: POST /api/feedback (app.js sends it). "Not useful" also keeps
// Mallory from bringing this source up again for the same question.
function judgeButtons(message, n) {
  const chosen = (message.judgments || {})[String(n)];
  return el("span", { className: "judge", role: "group", "aria-label": `Feedback on source ${n}` },
    ...JUDGMENTS.map(({ judgment, glyph, label }) => el("button", {
      type: "button", className: "judge-button", "data-feedback": judgment,
      "data-source-n": String(n), "aria-pressed": String(chosen === judgment),
      "aria-label": label(n), title: label(n) }, icon(glyph))));
}

// After the server stored a judgment: press its button, release the other.
export function markJudged(button) {
  for (const other of button.closest(".judge").querySelectorAll("button[data-feedback]")) {
    other.setAttribute("aria-pressed", String(other === button));
  }
}

function renderSource(message, source) {
  const href = safeHref(source.href);
  const kind = source.kind === "note" ? "note" : "message";
  const label = href
    ? el("a", { href, "data-source-kind": kind, "data-snippet": source.snippet, text: source.label })
    : el("span", { text: source.label });
  return el("li", { id: sourceAnchor(message.id, source.n), value: String(source.n) },
    el("span", { className: "kind", text: kind === "note" ? "Note" : "Chat" }), label,
    standingBadge(source.standing), judgeButtons(message, source.n),
    el("span", { className: "snippet", text: source.snippet }));
}

// Sources the gate was less sure of (under shared.rank.policy.LESS_CERTAIN) are listed
// apart, under their own quiet heading, so a confident answer's footer reads first.
function renderSources(message) {
  if (!message.sources || message.sources.length === 0) return null;
  const sure = message.sources.filter((s) => !s.less_certain);
  const unsure = message.sources.filter((s) => s.less_certain);
  const list = (items) => el("ol", {}, ...items.map((s) => renderSource(message, s)));
  return el("footer", { className: "sources", "data-sources": "" },
    sure.length ? el("h4", { text: "Sources" }) : null, sure.length ? list(sure) : null,
    unsure.length ? el("h4", { className: "less-certain", "data-less-certain": "",
      text: "Less certain" }) : null,
    unsure.length ? list(unsure) : null);
}

export const WITHDRAWN_TEXT = "Withdrawn: this answer drew on something you have since " +
  "deleted or changed, so its text and sources were removed.";

// A withdrawn answer keeps its place, with its text gone (the server removed it).
function renderWithdrawn() {
  return el("div", { className: "content withdrawn", "data-withdrawn": "", text: WITHDRAWN_TEXT });
}

export function renderMessage(message) {
  const who = message.role === "user" ? "You" : "Mallory";
  const remove = el("button", { type: "button", className: "icon-button delete-message",
    "data-delete-message": message.id, "aria-label": `Delete this message from ${who}`,
    title: "Delete message" }, icon("trash"));
  const body = message.withdrawn
    ? [renderWithdrawn()] : [renderContent(message), renderSources(message)];
  // "Why these memories": what recall weighed for this answer (inspect.js).
  const why = message.role === "assistant" && !message.withdrawn
    ? el("button", { type: "button", className: "inspect-button",
      "data-inspect-answer": message.id, text: "Why these memories" }) : null;
  // Remember: propose this message as a saved memory (memories.js).
  const keep = message.withdrawn ? null : el("button", { type: "button",
    className: "inspect-button", "data-remember-message": message.id, text: "Remember" });
  return el("article", { className: "message", "data-message-id": message.id,
    "data-role": message.role },
    el("div", { className: "meta" },
      el("span", { text: `${who} · ${formatTime(message.created_at)}` }),
      el("span", { className: "meta-actions" }, why, keep, remove)),
    ...body);
}

// Answers a forget withdrew (DELETE's `withdrawn_ids`): shown withdrawn where they are on
// screen, and no snippet of them kept in this tab.
export function showWithdrawn(root, ids) {
  const snippets = readStore(SNIPPETS_KEY);
  for (const id of ids) {
    delete snippets[id];
    const article = root.querySelector(`article[data-message-id="${CSS.escape(id)}"]`);
    if (!article) continue;
    for (const part of article.querySelectorAll(".content, [data-sources]")) part.remove();
    article.append(renderWithdrawn());
  }
  writeStore(SNIPPETS_KEY, snippets);
}

// Once a message is forgotten, footers on screen stop citing it (the server has already
// removed the citation from the stored Sources).
export function removeCitationsOf(root, id) {
  for (const link of root.querySelectorAll("[data-sources] a[data-source-kind='message']")) {
    if (messageIdOf(link.getAttribute("href")) !== id) continue;
    const item = link.closest("li");
    const article = link.closest("article");
    const footer = link.closest("[data-sources]");
    for (const cite of article?.querySelectorAll(`a.cite[data-cite='${Number(item.value)}']`) || []) {
      cite.replaceWith(document.createTextNode(cite.textContent));
    }
    item.remove();
    if (!footer.querySelector("li")) footer.remove();
  }
}
