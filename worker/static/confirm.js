// The confirmation step before anything is forgotten: a real <dialog>, never window.confirm.

const dialog = document.getElementById("confirm");
const title = document.getElementById("confirm-title");
const text = document.getElementById("confirm-text");
const accept = document.getElementById("confirm-accept");

// Resolves true only when the owner presses the (named) action button.
export function confirmAction({ heading, body, action }) {
  if (dialog.open) return Promise.resolve(false);  // one question at a time
  title.textContent = heading;
  text.textContent = body;
  accept.textContent = action;
  dialog.returnValue = "";
  const opener = document.activeElement;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(dialog.returnValue === "confirm");
    }, { once: true });
    dialog.showModal();
    document.getElementById("confirm-cancel").focus();
  });
}
