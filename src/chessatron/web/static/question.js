// Questions to the player, asked near the board with a few buttons: "Resign this game?", and whatever the
// table needs to know (which of two moves a player made, say). One at a time; a new one replaces the last.
const $ = (id) => document.getElementById(id);

let pending = null; // the resolve function of the question shown

/** Ask ``text``; ``choices`` are [{label, value, primary}]. Resolves to the value of the button pressed, or
 * null when the question was withdrawn (another one, or ``withdraw()``). */
export function ask(text, choices) {
  withdraw();
  const box = $("question");
  const words = document.createElement("p");
  words.textContent = text;
  const buttons = document.createElement("div");
  buttons.className = "buttons";
  const answered = new Promise((resolve) => {
    pending = resolve;
    for (const choice of choices) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = choice.label;
      button.dataset.answer = String(choice.value);
      if (choice.primary) button.className = "primary";
      button.addEventListener("click", () => {
        close();
        resolve(choice.value);
      });
      buttons.append(button);
    }
  });
  box.replaceChildren(words, buttons);
  box.hidden = false;
  const shown = box.getBoundingClientRect();
  if (shown.top < 0 || shown.bottom > window.innerHeight) box.scrollIntoView({ block: "nearest" });
  return answered;
}

/** Take back the question shown, if any: it resolves to null. */
export function withdraw() {
  if (!pending) return;
  const resolve = pending;
  close();
  resolve(null);
}

/** Whether a question waits for an answer. */
export function asking() {
  return pending !== null;
}

function close() {
  pending = null;
  $("question").hidden = true;
  $("question").replaceChildren();
}
