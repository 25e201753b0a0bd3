// The settings: the player's own first (their name, the engine's level when a game names none, the board's
// look, sound), then every key of the machine's config, each with what it does, changed from the page
// (GET and POST /api/v1/settings). The server checks a change as `chessatron config check` checks a file
// and refuses every wrong value at once: each beside its field, all of them named at the save button,
// nothing written. The note at the button is only ever about the latest save.
import { list, speaking, t, tn } from "./i18n.js";
import { setSound, soundByDefault } from "./sound.js";

const API = "/api/v1";
/** How a number is written, as the config's checker reads it (no letters: "12abc" is no 12). */
const NUMBERS = {
  int: { pattern: "-?[0-9]+", mode: "numeric" },
  number: { pattern: "-?[0-9]+(\\.[0-9]+)?", mode: "decimal" },
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
      show(form, summary, refused, needFixing(refused, false));
      return;
    }
    const values = changes(form);
    if (!Object.keys(values).length) {
      note.textContent = t("Nothing changed.");
      return;
    }
    note.textContent = t("Saving…");
    button.disabled = true;
    try {
      const response = await fetch(
        `${API}/settings`,
        speaking({
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ values }),
        }),
      );
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        note.textContent = "";
        const why = answer.error || t("the server answered {status}", { status: response.status });
        const errors = answer.errors || [{ field: answer.field || null, error: why }];
        show(form, summary, errors, why);
        return;
      }
      // TRANSLATORS: {path} is the config file, {previous} its copy as it was, {applies} when the change
      // applies ("from the next game on")
      const said = { path: answer.path, previous: answer.previous, applies: answer.applies };
      note.textContent = answer.previous
        ? t("Saved to {path}. The previous file is kept as {previous}. It applies {applies}.", said)
        : t("Saved to {path}. It applies {applies}.", said);
      if ("player.sound" in values) setSound(values["player.sound"] !== false); // this browser follows
      await load(form, list, file, summary);
      saved();
    } catch {
      note.textContent = "";
      summary.textContent = t("The settings could not be sent; is chessatron serve still running?");
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
    if (input) input.placeholder = player.level ? t("level: {level} (your default)", { level: player.level }) : t("level: 5, 1500elo");
  }
}

async function load(form, list, file, summary) {
  try {
    const response = await fetch(`${API}/settings`, speaking());
    const answer = await response.json();
    if (!response.ok) {
      list.replaceChildren();
      summary.textContent = capital(answer.error || t("the server answered {status}", { status: response.status }));
      return;
    }
    loaded = answer;
    const mine = answer.keys.filter((key) => key.section === "player");
    const machine = answer.keys.filter((key) => key.section !== "player");
    list.replaceChildren(
      group(t("You"), t("Your name in the games, the engine's level when a game names none, this page's board and sound."), mine),
      group(t("The machine"), t("The gantry's GRBL board, the magnet, the sensors, the LEDs, the display, the buzzer, the buttons, the voice, online play."), machine),
    );
    form.querySelector("button[type=submit]").disabled = false;
    file.textContent = answer.exists
      ? t("The file: {path}.", { path: answer.path })
      : t("The file: {path} (made from the defaults when saved).", { path: answer.path });
    if (answer.problems && answer.problems.length) {
      show(form, summary, answer.problems, needFixing(answer.problems, true), false);
    }
  } catch {
    summary.textContent = t("The settings could not be loaded; is chessatron serve still running?");
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
    const unset = key.default === null ? t("unset: automatic") : t("default: {value}", { value: shown(key, key.default) });
    const choices = key.kind === "bool" ? ["true", "false"] : key.examples;
    for (const [option, text] of [["", unset], ...choices.map((c) => [c, shown(key, c)])]) {
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
    }
    input.autocomplete = "off";
    input.spellcheck = false;
    input.maxLength = key.kind === "text" ? 40 : 400;
    input.placeholder = key.default === null ? t("unset") : t("default: {value}", { value: key.default });
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
  // TRANSLATORS: {help} is what a setting does, {examples} values it takes ("/dev/ttyUSB0, sim://")
  doc.textContent = listed ? t("{help} For example: {examples}.", { help: key.doc, examples: key.examples.join(", ") }) : key.doc;
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
  const values = { setting: input.dataset.title, value: JSON.stringify(text) };
  // TRANSLATORS: a number field's text that is no number: '[grbl] baudrate = "12abc" is not a whole number…'
  return input.dataset.kind === "int"
    ? t("{setting} = {value} is not a whole number: digits only, e.g. 115200", values)
    : t("{setting} = {value} is not a number: digits and a point, e.g. 0.3", values);
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

/** "2 settings need fixing: [grbl] baudrate and [training] watcher_loss; nothing was sent" (``inFile``:
 * what the file as it is needs). */
function needFixing(errors, inFile) {
  const names = [...new Set(errors.map((e) => (e.field && loadedTitle(e.field)) || e.field || t("the file")))];
  const values = { count: names.length, settings: list(names) };
  if (inFile) {
    return tn("In the file as it is, {count} setting needs fixing: {settings}", "In the file as it is, {count} settings need fixing: {settings}", names.length, values);
  }
  return tn("{count} setting needs fixing: {settings}; nothing was sent", "{count} settings need fixing: {settings}; nothing was sent", names.length, values);
}

/** A setting's value as the page offers it: a language in its own name ("Deutsch (de)"). */
function shown(key, value) {
  const names = (loaded && loaded.languages) || {};
  return key.key === "player.language" && Object.hasOwn(names, value) ? `${names[value]} (${value})` : String(value);
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
