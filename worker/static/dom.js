// Small DOM and HTTP helpers shared by the client's modules. Text always goes in through
// textContent or text nodes, never as HTML.

const SVG = "http://www.w3.org/2000/svg";
const ICONS = {
  pencil: "M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4",
  trash: "M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13M10 11v6M14 11v6",
  search: "M11 4a7 7 0 1 0 0 14a7 7 0 0 0 0-14zM16 16l5 5",
  thumbUp: "M7 10v10H4V10h3zM7 10l4-7c1.5 0 2.5 1 2.2 2.5L12.5 9H18a2 2 0 0 1 2 2.3" +
    "l-1.2 6.5A2 2 0 0 1 16.8 20H7",
  thumbDown: "M7 14V4H4v10h3zM7 14l4 7c1.5 0 2.5-1 2.2-2.5L12.5 15H18a2 2 0 0 0 2-2.3" +
    "l-1.2-6.5A2 2 0 0 0 16.8 4H7",
};

export class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

export async function api(path, options = {}) {
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

export function el(tag, attrs = {}, ...children) {
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

export function icon(name) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", ICONS[name]);
  svg.append(path);
  return svg;
}

// The only links the client ever produces: Obsidian notes and same-origin message links.
export function safeHref(href) {
  if (typeof href !== "string") return null;
  if (href.startsWith("obsidian://open?")) return href;
  if (/^\/\?msg=[A-Za-z0-9%._:~-]{1,300}$/.test(href)) return href;
  return null;
}

export function messageIdOf(href) {
  return new URLSearchParams(href.slice(href.indexOf("?") + 1)).get("msg");
}

function validDate(iso) {
  const date = new Date(iso);
  return typeof iso === "string" && !Number.isNaN(date.getTime()) ? date : null;
}

export function formatTime(iso) {
  const date = validDate(iso);
  return date ? date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "";
}

// "14:32" today, "Mon" this week, "12 Mar" this year, else "12 Mar 2024".
export function shortDate(iso, now = new Date()) {
  const date = validDate(iso);
  if (!date) return "";
  const days = (now - date) / 86_400_000;
  if (date.toDateString() === now.toDateString()) {
    return date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  }
  if (days >= 0 && days < 6) return date.toLocaleDateString(undefined, { weekday: "short" });
  const options = { day: "numeric", month: "short" };
  if (date.getFullYear() !== now.getFullYear()) options.year = "numeric";
  return date.toLocaleDateString(undefined, options);
}

export function duration(seconds) {
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) return "";
  if (seconds < 90) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}

export function isTyping(target) {
  if (!(target instanceof Element)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

// A note's standing as the server words it ("draft", "deprecated — superseded by [2]"):
// a quiet badge, warm when the note is deprecated or stale. The first word is the status
// when there is one, else a relation ("contradicts [1]").
export function standingBadge(text) {
  if (typeof text !== "string" || !text) return null;
  return el("span", { className: "standing", "data-standing": text.split(/\s/)[0], text });
}
