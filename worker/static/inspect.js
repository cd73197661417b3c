// The retrieval inspector's panel: "why these memories" for an answer (GET
// /api/inspect/answers/{id}) or a search (GET /api/inspect/search), every candidate with
// its scores and the gate's decision, and "why is this missing" for a note or a message
// (GET /api/inspect/missing). The reasons are the server's words (the gate's own).

import { api, el, messageIdOf, safeHref } from "./dom.js";

const KINDS = { note: "Note", message: "Chat" };

function figure(name, value, digits = 3) {
  return typeof value === "number" ? `${name} ${value.toFixed(digits)}` : null;
}

// The scores a candidate was ranked and gated on, in one quiet line.
function figures(c) {
  const parts = [
    typeof c.confidence === "number" ? `confidence ${c.confidence.toFixed(2)}` : null,
    figure("relevance", c.relevance),
    typeof c.cosine === "number" ? `cosine ${c.cosine.toFixed(3)}` +
      (c.vector_rank ? ` (#${c.vector_rank})` : "") : null,
    c.lexical_rank ? `lexical #${c.lexical_rank}` : null,
    figure("fused", c.fused, 4), figure("rerank", c.rerank),
    typeof c.recency === "number" ? `recency ×${c.recency.toFixed(3)}` : null,
    typeof c.standing === "number" ? `standing ×${c.standing.toFixed(3)}` : null,
    figure("score", c.score),
    c.pending ? "no vector yet" : null, c.fuzzy ? "spelling guess" : null,
  ];
  return parts.filter(Boolean).join(" · ");
}

function badge(text, kind) { return el("span", { className: `inspect-badge ${kind}`, text }); }

export function renderCandidate(c) {
  const href = safeHref(c.href);
  const label = href ? el("a", { href, text: c.label, "data-source-kind": c.kind })
    : el("span", { text: c.label });
  const decision = c.decision || {};
  const where = [c.vault, c.heading].filter((v) => typeof v === "string" && v).join(" › ");
  return el("li", { className: "inspect-candidate", "data-inspect-kind": c.kind,
    "data-inspect-id": String(c.id), "data-rule": String(decision.rule),
    "data-hit": String(Boolean(c.hit)) },
    el("div", { className: "inspect-head" },
      el("span", { className: "inspect-rank", text: c.rank ? `#${c.rank}` : "–" }),
      el("span", { className: "kind", text: KINDS[c.kind] || "?" }), label,
      where ? el("span", { className: "hit-where", text: where }) : null,
      c.hit ? badge("recalled", "hit") : null,
      c.injected ? badge("given to the answer", "injected") : null,
      typeof c.cited === "number" ? badge(`cited [${c.cited}]`, "cited") : null,
      c.after_question ? badge("dated after the question", "after") : null),
    el("p", { className: "inspect-figures", text: figures(c) }),
    c.matched_terms && c.matched_terms.length
      ? el("p", { className: "inspect-terms", text: `matches: ${c.matched_terms.join(", ")}` }) : null,
    el("p", { className: "inspect-decision", "data-passed": String(Boolean(decision.passed)),
      text: `${decision.passed ? "✓" : "✗"} ${decision.rule}: ${decision.reason}` }));
}

function summary(body) {
  const g = body.gate || {};
  const gate = `${g.model} confidence model (injects at ${g.threshold}` +
    (g.related_floor ? `, search lists a vector-only hit from ${g.related_floor})` : ")");
  const parts = [`“${body.query}”`, `${body.mode} mode`, body.fallback ? `fell back: ${body.fallback}` : null,
    `${body.policy} policy, ${gate}`, `${body.candidates.length} candidates, ${body.hits} recalled`,
    body.skipped ? `recall skipped: a ${body.skipped} message` : null];
  return parts.filter(Boolean).join(" · ");
}

export class InspectorView {
  // hooks: vaults() → [{name}] from the last /status
  constructor({ dialog, title, summary: summaryNode, replay, candidates, form, result, hooks }) {
    Object.assign(this, { dialog, title, summaryNode, replay, candidates, form, result, hooks });
    this.subject = null;  // {answer: id} or {q, ...search params}
    this.returnFocus = null;
    dialog.querySelector("[data-close]").addEventListener("click", () => this.close());
    dialog.addEventListener("cancel", (event) => { event.preventDefault(); this.close(); });
    dialog.addEventListener("click", (event) => { if (event.target === dialog) this.close(); });
    form.addEventListener("submit", (event) => { event.preventDefault(); this.explainMissing(); });
  }

  get isOpen() { return this.dialog.open; }

  open() {
    if (!this.isOpen) {
      this.returnFocus = document.activeElement;
      const vaults = this.hooks.vaults().map((v) => v.name);
      const select = this.form.elements.vault;
      select.replaceChildren(...vaults.map((name) => el("option", { value: name, text: name })));
      this.dialog.showModal();
    }
    this.dialog.querySelector("[data-close]").focus();
  }

  close() {
    if (!this.isOpen) return;
    this.dialog.close();
    const target = this.returnFocus;
    this.returnFocus = null;
    if (target instanceof HTMLElement && target.isConnected) target.focus();
  }

  async inspectAnswer(id) {
    this.subject = { answer: id };
    await this.load("Why these memories", `/api/inspect/answers/${encodeURIComponent(id)}`);
  }

  async inspectSearch(params) {
    this.subject = Object.fromEntries(params);
    await this.load("Why these results", `/api/inspect/search?${params}`);
  }

  async load(title, path) {
    this.title.textContent = title;
    this.summaryNode.textContent = "Loading…";
    this.replay.hidden = true;
    this.candidates.replaceChildren();
    this.result.replaceChildren();
    this.open();
    try {
      this.render(await api(path));
    } catch (error) {
      this.summaryNode.textContent = `Could not inspect: ${error.message}`;
    }
  }

  render(body) {
    this.summaryNode.textContent = summary(body);
    if (body.answer) {
      const a = body.answer;
      this.replay.textContent = (a.replay_matches ? "" : "The replay does not recall what " +
        "the answer was given (memory changed since). ") + a.replay;
      this.replay.hidden = false;
    }
    this.candidates.replaceChildren(...body.candidates.map(renderCandidate));
    if (!body.candidates.length) {
      this.candidates.append(el("li", { className: "inspect-none", text: "No candidates." }));
    }
  }

  missingParams() {
    const f = this.form.elements;
    const params = new URLSearchParams(this.subject || {});
    const raw = f.message.value.trim();
    if (raw) {
      params.set("message", raw.includes("msg=") ? messageIdOf(raw) || raw : raw);
    } else {
      params.set("path", f.path.value.trim());
      if (f.vault.value) params.set("vault", f.vault.value);
    }
    return params;
  }

  async explainMissing() {
    if (!this.subject) return;
    this.result.replaceChildren(el("p", { text: "Looking…" }));
    try {
      const body = await api(`/api/inspect/missing?${this.missingParams()}`);
      const head = el("p", { className: "missing-reason", "data-status": body.status,
        "data-rule": body.rule, text: `${body.label ? `${body.label}: ` : ""}` +
          `${body.status === "hit" ? "not missing" : "missing"} — ${body.rule}: ${body.reason}` });
      const unit = body.unit ? el("p", { className: "inspect-figures",
        text: `best unit${body.unit.heading ? ` “${body.unit.heading}”` : ""}: rank ` +
          `${body.unit.lexical_rank} of ${body.unit.matching} · matches ` +
          `${body.unit.matched_terms.join(", ") || "nothing"} · ${body.unit.snippet}` }) : null;
      const candidate = body.candidate
        ? el("ol", { className: "inspect-candidates" }, renderCandidate(body.candidate)) : null;
      this.result.replaceChildren(...[head, unit, candidate].filter(Boolean));
    } catch (error) {
      this.result.replaceChildren(el("p", { className: "missing-reason", "data-status": "error",
        text: error.message }));
    }
  }
}
