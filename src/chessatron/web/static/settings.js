// The settings: the player's own first (their name, the engine's level when a game names none, the board's
// look, sound), then every key of the machine's config, each with what it does, changed from the page
// (GET and POST /api/v1/settings). The server checks a change as `chessatron config check` checks a file
// and refuses every wrong value at once: each beside its field, all of them named at the save button,
// nothing written. The note at the button is only ever about the latest save.
import { setSound, soundByDefault } from "./sound.js";

const API = "/api/v1";
/** How a number is written, as the config's checker reads it (no letters: "12abc" is no 12). */
const NUMBERS = {
  int: { pattern: "-?[0-9]+", mode: "numeric", words: "a whole number: digits only, e.g. 115200" },
  number: { pattern: "-?[0-9]+(\\.[0-9]+)?", mode: "decimal", words: "a number: digits and a point, e.g. 0.3" },
};

let loaded = null; // the settings as the server last sent them

/** The settings form in ``form`` (its fields in ``list``, the note about the latest save in ``note``, the
 * file it changes in ``file``); ``saved()`` is called after a save the server accepted. */
export function setUpSettings(form, list, note, file, saved) {
  const summary = form.querySelector("#settings-error");
  const button = form.querySelector("button[type=submit]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!loaded) return;
    note.textContent = ""; // the note is about this save from now on, never the one before
    clearErrors(form, summary);
    const refused = unreadable(form);
    if (refused.length) {
      show(form, summary, refused, `${needFixing(refused)}; nothing was sent`);
      return;
    }
    const values = changes(form);
    if (!Object.keys(values).length) {
      note.textContent = "Nothing changed.";
      return;
    }
    note.textContent = "Saving…";
    button.disabled = true;
    try {
      const response = await fetch(`${API}/settings`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ values }),
      });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        note.textContent = "";
        const errors = answer.errors || [{ field: answer.field || null, error: answer.error || `the server answered ${response.status}` }];
        show(form, summary, errors, answer.error || `the server answered ${response.status}`);
        return;
      }
      const kept = answer.previous ? ` The previous file is kept as ${answer.previous}.` : "";
      note.textContent = `Saved to ${answer.path}.${kept} It applies ${answer.applies}.`;
      if ("player.sound" in values) setSound(values["player.sound"] !== false); // this browser follows
      await load(form, list, file, summary);
      saved();
    } catch {
      note.textContent = "";
      summary.textContent = "The settings could not be sent; is chessatron serve still running?";
    } finally {
      button.disabled = !loaded;
    }
  });
  // a field being mended loses its error, and a number field says at once when letters creep in
  form.addEventListener("input", (event) => {
    const input = event.target;
    if (!input.name) return;
    const line = form.querySelector(`.field-error[data-field="${CSS.escape(input.name)}"]`);
    const wrong = misread(input);
    input.setAttribute("aria-invalid", String(Boolean(wrong)));
    if (line) line.textContent = wrong ? capital(wrong) : "";
  });
  form.closest("details").addEventListener("toggle", (event) => {
    if (event.target.open) load(form, list, file, summary);
  });
}

/** The player's settings as the server has them (GET /api/v1's ``player``), applied to this page: the
 * board's colours, sound when this browser has not chosen, the engine's level offered by the New game form. */
export function applyPlayer(player) {
  if (!player) return;
  document.body.dataset.board = player.board || "brown";
  soundByDefault(player.sound !== false);
  for (const side of ["white", "black"]) {
    const input = document.querySelector(`input[name=${side}-level]`);
    if (input) input.placeholder = player.level ? `level: ${player.level} (your default)` : "level: 5, 1500elo";
  }
}

async function load(form, list, file, summary) {
  try {
    const response = await fetch(`${API}/settings`);
    const answer = await response.json();
    if (!response.ok) {
      list.replaceChildren();
      summary.textContent = capital(answer.error || `the server answered ${response.status}`);
      return;
    }
    loaded = answer;
    const mine = answer.keys.filter((key) => key.section === "player");
    const machine = answer.keys.filter((key) => key.section !== "player");
    list.replaceChildren(
      group("You", "Your name in the games, the engine's level when a game names none, this page's board and sound.", mine),
      group("The machine", "The gantry's GRBL board, the magnet, the sensors, the LEDs, the display, the buzzer, the buttons, the voice, online play.", machine),
    );
    form.querySelector("button[type=submit]").disabled = false;
    file.textContent = answer.exists
      ? `The file: ${answer.path}.`
      : `The file: ${answer.path} (made from the defaults when saved).`;
    if (answer.problems && answer.problems.length) {
      show(form, summary, answer.problems, `In the file as it is, ${needFixing(answer.problems)}`, false);
    }
  } catch {
    summary.textContent = "The settings could not be loaded; is chessatron serve still running?";
  }
}

function group(title, about, keys) {
  const set = document.createElement("fieldset");
  set.className = "settings-group";
  const legend = document.createElement("legend");
  legend.textContent = title;
  const note = document.createElement("p");
  note.className = "note";
  note.textContent = about;
  set.append(legend, note, ...keys.map(field));
  return set;
}

/** One key: its name, its value (empty: the default), what it does and its error line. */
function field(key) {
  const row = document.createElement("div");
  row.className = "setting";
  const label = document.createElement("label");
  const id = `setting-${key.key}`;
  label.htmlFor = id;
  label.textContent = key.title;
  const value = key.value === null || key.value === undefined ? "" : String(key.value);
  let input;
  if (key.kind === "bool" || key.kind === "choice") {
    input = document.createElement("select");
    const unset = key.default === null ? "unset: automatic" : `default: ${key.default}`;
    const choices = key.kind === "bool" ? ["true", "false"] : key.examples;
    for (const [option, text] of [["", unset], ...choices.map((c) => [c, c])]) {
      const element = document.createElement("option");
      element.value = option;
      element.textContent = text;
      input.append(element);
    }
    input.value = value;
  } else {
    input = document.createElement("input");
    // never type=number: Chromium drops the letters of "12abc" and sends 12; a text field keeps what was
    // typed, and says it is no number
    input.type = "text";
    const number = NUMBERS[key.kind];
    if (number) {
      input.inputMode = number.mode;
      input.pattern = number.pattern;
      input.dataset.words = number.words;
    }
    input.autocomplete = "off";
    input.spellcheck = false;
    input.maxLength = key.kind === "text" ? 40 : 400;
    input.placeholder = key.default === null ? "unset" : `default: ${key.default}`;
    input.value = value;
    if (key.examples.length) {
      const list = document.createElement("datalist");
      list.id = `${id}-examples`;
      for (const example of key.examples) {
        const option = document.createElement("option");
        option.value = example;
        list.append(option);
      }
      row.append(list);
      input.setAttribute("list", list.id);
    }
  }
  input.id = id;
  input.name = key.key;
  input.dataset.kind = key.kind;
  input.dataset.title = key.title;
  const doc = document.createElement("p");
  doc.className = "note";
  const listed = key.examples.length && key.kind !== "choice";
  doc.textContent = key.doc + (listed ? ` For example: ${key.examples.join(", ")}.` : "");
  const error = document.createElement("span");
  error.className = "error field-error";
  error.dataset.field = key.key;
  error.id = `${id}-error`;
  input.setAttribute("aria-describedby", error.id);
  row.append(label, input, doc, error);
  return row;
}

/** What is wrong with a number field's text as typed ("" when nothing is, or it is no number field). */
function misread(input) {
  const text = input.value.trim();
  if (!input.pattern || !text || new RegExp(`^(?:${input.pattern})$`).test(text)) return "";
  return `${input.dataset.title} = ${JSON.stringify(text)} is not ${input.dataset.words}`;
}

/** The number fields whose text is no number, as errors beside them. */
function unreadable(form) {
  const found = [];
  for (const input of form.querySelectorAll("input[pattern]")) {
    const wrong = misread(input);
    if (wrong) found.push({ field: input.name, error: wrong });
  }
  return found;
}

/** "2 settings need fixing: [grbl] baudrate, [training] watcher_loss". */
function needFixing(errors) {
  const names = [...new Set(errors.map((e) => (e.field && loadedTitle(e.field)) || e.field || "the file"))];
  const many = names.length > 1;
  return `${names.length} setting${many ? "s" : ""} need${many ? "" : "s"} fixing: ${names.join(", ")}`;
}

function loadedTitle(key) {
  const found = loaded && loaded.keys.find((k) => k.key === key);
  return found ? found.title : null;
}

function clearErrors(form, summary) {
  summary.textContent = "";
  for (const line of form.querySelectorAll(".field-error")) line.textContent = "";
  for (const input of form.querySelectorAll("[aria-invalid=true]")) input.setAttribute("aria-invalid", "false");
}

/** Each error beside its field (those of no field on the page in the summary too), the summary at the save
 * button; the first field with an error is brought into view and focused (``focus``). */
function show(form, summary, errors, words, focus = true) {
  const elsewhere = [];
  let first = null;
  for (const { field, error } of errors) {
    const line = field && form.querySelector(`.field-error[data-field="${CSS.escape(field)}"]`);
    if (!line) {
      elsewhere.push(capital(error));
      continue;
    }
    line.textContent = line.textContent ? `${line.textContent} ${capital(error)}` : capital(error);
    const input = form.elements[field];
    if (input) {
      input.setAttribute("aria-invalid", "true");
      first = first || input;
    }
  }
  summary.textContent = [capital(words) + ".", ...elsewhere].join(" ");
  if (focus && first) {
    first.scrollIntoView({ block: "center" });
    first.focus({ preventScroll: true });
  }
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The values changed in the form, as the server takes them (an emptied field: null, the default). */
function changes(form) {
  const values = {};
  for (const key of loaded.keys) {
    const input = form.elements[key.key];
    if (!input) continue;
    const before = key.value === null || key.value === undefined ? "" : String(key.value);
    const text = input.value.trim();
    if (text === before) continue;
    if (text === "") values[key.key] = null;
    else if (key.kind === "bool") values[key.key] = text === "true";
    else if (key.kind === "int" || key.kind === "number") values[key.key] = Number(text); // checked: digits only
    else values[key.key] = text;
  }
  return values;
}
