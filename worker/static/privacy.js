// Incognito conversations and the memory pause (README, "Memory pause and incognito
// chats"): the toggle when a conversation starts, the banner that says a conversation is
// not remembered, and the pause banner with its Pause/Resume button.

import { api } from "./dom.js";

export const INCOGNITO_TEXT = "Incognito: Mallory does not remember this conversation. " +
  "Nothing in it is indexed or ever recalled, here or in other conversations.";
export const PAUSED_TEXT = "Memory is paused: Mallory recalls nothing and remembers " +
  "nothing you write until you resume.";

export class PrivacyControls {
  constructor({ toggle, toggleLabel, banner, pauseBanner, pauseText, pauseButton, hooks }) {
    Object.assign(this, { toggle, toggleLabel, banner, pauseBanner, pauseText, pauseButton,
      hooks });
    this.paused = false;
    this.current = false;  // the open conversation is incognito
    this.starting = true;  // no conversation yet: the toggle chooses
    toggle.addEventListener("change", () => this.show());
    pauseButton.addEventListener("click", () => this.setPaused(!this.paused));
  }

  // A new conversation is about to start (`incognito` null) or one is open.
  showConversation(incognito) {
    this.starting = incognito === null;
    this.current = incognito === true;
    if (this.starting) this.toggle.checked = false;
    this.show();
  }

  wantsIncognito() { return this.starting && this.toggle.checked; }

  show() {
    this.toggleLabel.hidden = !this.starting;
    const incognito = this.starting ? this.toggle.checked : this.current;
    this.banner.textContent = INCOGNITO_TEXT;
    this.banner.hidden = !incognito;
    document.body.classList.toggle("incognito", incognito);
  }

  // `memory: {paused, paused_at}` from /status (a Worker without it: not paused).
  renderPause(memory) {
    this.paused = Boolean(memory && memory.paused === true);
    this.pauseText.textContent = this.paused ? PAUSED_TEXT : "";
    this.pauseBanner.hidden = !this.paused;
    this.pauseButton.textContent = this.paused ? "Resume memory" : "Pause memory";
    this.pauseButton.setAttribute("aria-pressed", this.paused ? "true" : "false");
  }

  async setPaused(paused) {
    this.pauseButton.disabled = true;
    try {
      const state = await api("/api/memory/pause", { method: "PUT",
        body: JSON.stringify({ paused }) });
      this.renderPause(state);
      this.hooks.changed();
    } catch (error) {
      this.hooks.error(`Could not ${paused ? "pause" : "resume"} memory: ${error.message}`);
    } finally {
      this.pauseButton.disabled = false;
    }
  }
}
