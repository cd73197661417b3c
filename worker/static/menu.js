// Small screens (under 720 px): the sidebar (new chat, search, history, status) becomes a
// drawer behind the Menu button of the top bar, closed again by Esc, the backdrop, or
// anything chosen in it. Wide screens never see the bar; the sidebar stays in place.

const NARROW = window.matchMedia("(max-width: 720px)");
const SHORT_PLACEHOLDER = "Message Mallory…";

export function startMenu() {
  const body = document.body;
  const button = document.getElementById("open-menu");
  const sidebar = document.getElementById("sidebar");
  const backdrop = document.getElementById("menu-backdrop");
  const input = document.getElementById("input");
  const longPlaceholder = input.placeholder;

  function setOpen(open) {
    body.classList.toggle("menu-open", open);
    button.setAttribute("aria-expanded", String(open));
    backdrop.hidden = !open;
    if (open) sidebar.querySelector("button, a")?.focus();
  }

  function fit() {
    input.placeholder = NARROW.matches ? SHORT_PLACEHOLDER : longPlaceholder;
    if (!NARROW.matches) setOpen(false);
  }

  button.addEventListener("click", () => setOpen(!body.classList.contains("menu-open")));
  backdrop.addEventListener("click", () => setOpen(false));
  document.getElementById("mobile-search").addEventListener("click", () => {
    document.getElementById("open-search").click();
  });
  // Whatever is chosen in the drawer (a conversation, new chat, search) closes it.
  sidebar.addEventListener("click", (event) => {
    if (NARROW.matches && event.target.closest("a, button")) setOpen(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && body.classList.contains("menu-open")) setOpen(false);
  });
  NARROW.addEventListener("change", fit);
  fit();
}
