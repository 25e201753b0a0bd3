// The machine's settings: every key of its config file with what it does, changed from the page
// (GET and POST /api/v1/settings). The server checks a change as `chessatron config check` checks a file
// and keeps the previous file; a wrong value is refused beside its field and nothing is written.

let loaded = null; // the settings as the server last sent them

/** The settings form in ``form`` (its list in ``list``, its notes in ``note``); ``post`` sends a change
 * (app.js's, which shows a refusal beside the field the server names). */
export function setUpSettings(form, list, note, post) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!loaded) return;
    const values = changes(form);
    if (!Object.keys(values).length) {
      note.textContent = "Nothing changed.";
      return;
    }
    const answer = await post("/settings", { values }, "settings-error");
    if (!answer) return;
    const kept = answer.previous ? ` The previous file is kept as ${answer.previous}.` : "";
    note.textContent = `Saved to ${answer.path}.${kept} It applies ${answer.applies}.`;
    await load(form, list, note);
  });
  form.closest("details").addEventListener("toggle", (event) => {
    if (event.target.open) load(form, list, note);
  });
}

async function load(form, list, note) {
  try {
    const response = await fetch("/api/v1/settings");
    const answer = await response.json();
    if (!response.ok) {
      list.replaceChildren();
      note.textContent = answer.error || `the server answered ${response.status}`;
      return;
    }
    loaded = answer;
    list.replaceChildren(...answer.keys.map(field));
    form.querySelector("button[type=submit]").disabled = false;
    const where = answer.exists ? `the file ${answer.path}` : `${answer.path} (made from the defaults when saved)`;
    if (!note.textContent.startsWith("Saved")) note.textContent = `The machine's config: ${where}.`;
  } catch {
    note.textContent = "The settings could not be loaded; is chessatron serve still running?";
  }
}

/** One key: its name, its value (empty: the default), what it does and its error line. */
function field(key) {
  const row = document.createElement("div");
  row.className = "setting";
  const label = document.createElement("label");
  const id = `setting-${key.key}`;
  label.htmlFor = id;
  label.textContent = key.title;
  let input;
  if (key.kind === "bool") {
    input = document.createElement("select");
    const unset = key.default === null ? "unset: automatic" : `default: ${key.default}`;
    for (const [value, text] of [["", unset], ["true", "true"], ["false", "false"]]) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = text;
      input.append(option);
    }
    input.value = key.value === null || key.value === undefined ? "" : String(key.value);
  } else if (key.kind === "choice") {
    input = document.createElement("select");
    for (const [value, text] of [["", `default: ${key.default}`], ...key.examples.map((c) => [c, c])]) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = text;
      input.append(option);
    }
    input.value = key.value === null || key.value === undefined ? "" : String(key.value);
  } else {
    input = document.createElement("input");
    input.type = key.kind === "int" || key.kind === "number" ? "number" : "text";
    if (key.kind === "number") input.step = "any";
    input.autocomplete = "off";
    input.spellcheck = false;
    input.maxLength = 400;
    input.placeholder = key.default === null ? "unset" : `default: ${key.default}`;
    input.value = key.value === null || key.value === undefined ? "" : String(key.value);
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
  const doc = document.createElement("p");
  doc.className = "note";
  const listed = key.examples.length && key.kind !== "choice";
  doc.textContent = key.doc + (listed ? ` For example: ${key.examples.join(", ")}.` : "");
  const error = document.createElement("span");
  error.className = "error field-error";
  error.dataset.field = key.key;
  row.append(label, input, doc, error);
  return row;
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
    else if (key.kind === "int") values[key.key] = /^-?\d+$/.test(text) ? Number(text) : text;
    else if (key.kind === "number") values[key.key] = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
    else values[key.key] = text;
  }
  return values;
}
