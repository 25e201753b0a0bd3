// The page's words in the page's language (chessatron.web.words serves the catalogs).
//
// A message is marked where it is written, a whole sentence with named placeholders, always a plain
// string literal (the catalogs' extraction reads the calls): t("Your move ({side})", { side }) and
// tn("{count} move", "{count} moves", count, { count }). In the HTML, an element with data-i18n has its
// text translated, and data-i18n-attrs="title aria-label placeholder" those attributes.
//
// The language: ?lang= in the page's address (kept, as a choice on the page), else the person's choice
// on the page (the language menu, kept in this browser), else the one the table is set to (--lang, the
// config's language), else the browser's preferred languages (navigator.languages), else English.
// Numbers, dates and lists are written with Intl in that language; moves with its piece letters (Sf3 in
// German, Cf3 in French), and moves typed are read in them (English SAN is always read too).
const KEY = "chessatron.language";
const PSEUDO = "pseudo";
const ENGLISH_LETTERS = "KQRBN";

// ?lang= is read before the page's other scripts tidy the address, and taken out of it (a reload keeps the
// language as the person's choice)
const asked = (() => {
  const params = new URLSearchParams(location.search);
  const value = params.get("lang");
  if (value !== null) {
    params.delete("lang");
    const query = params.toString();
    history.replaceState(history.state, "", location.pathname + (query ? `?${query}` : "") + location.hash);
  }
  return value;
})();

let catalog = { language: "en", name: "English", letters: ENGLISH_LETTERS, messages: {}, plurals: {} };
let rules = new Intl.PluralRules("en"); // the language's plural rule
let languages = { en: "English" }; // the table's languages, each in its own name (GET /api/v1)

/** The page's language: a code of the table's languages (``en``, ``de``...), or ``pseudo``. */
export function language() {
  return catalog.language;
}

/** The locale Intl writes numbers and dates in (the pseudo-language writes as English). */
export function locale() {
  return catalog.language === PSEUDO ? "en" : catalog.language;
}

/** ``message`` in the page's language, its ``{placeholders}`` filled from ``values``. */
export function t(message, values = {}) {
  return fill(Object.hasOwn(catalog.messages, message) ? catalog.messages[message] : message, values);
}

/** The form of a message that fits ``count`` (the language's plural rule: Intl.PluralRules' "one" is the
 * first form, anything else the second), its ``{placeholders}`` filled from ``values``. */
export function tn(singular, plural, count, values = {}) {
  const forms = Object.hasOwn(catalog.plurals, singular) ? catalog.plurals[singular] : [singular, plural];
  return fill(forms[rules.select(count) === "one" ? 0 : 1], values);
}

function fill(text, values) {
  return text.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}

/** A number as the language writes it (``options``: Intl.NumberFormat's). */
export function number(value, options = {}) {
  return new Intl.NumberFormat(locale(), options).format(value);
}

/** A moment (an ISO 8601 text, or a Date) as the language writes it, in this browser's time zone; a day
 * alone ("2023-04-01") as that day. */
export function when(value, options = { dateStyle: "medium", timeStyle: "short" }) {
  let moment = value;
  if (typeof value === "string") {
    const day = /^(\d{4})-(\d\d)-(\d\d)$/.exec(value);
    moment = day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])) : new Date(value);
    if (day) options = { dateStyle: options.dateStyle || "medium" };
  }
  if (Number.isNaN(moment.getTime())) return String(value);
  return new Intl.DateTimeFormat(locale(), options).format(moment);
}

/** Items as a list in the language: "a, b and c" (``type`` "conjunction"), "a, b or c" ("disjunction"). */
export function list(items, type = "conjunction") {
  return new Intl.ListFormat(locale(), { style: "long", type }).format(items.map(String));
}

/** An English SAN (as the server sends moves) written with the language's piece letters: Nf3 is Sf3 in
 * German; castling, squares and the rest as they are. */
export function shownSan(move) {
  const letters = catalog.letters;
  if (!move || letters === ENGLISH_LETTERS) return move;
  let out = "";
  for (let index = 0; index < move.length; index += 1) {
    const char = move[index];
    const at = ENGLISH_LETTERS.indexOf(char);
    // a piece letter stands first, or after a promotion's "="
    out += at >= 0 && (index === 0 || move[index - 1] === "=") ? letters[at] : char;
  }
  return out;
}

/** A line of English SAN moves ("Nf3 Nc6 Bb5") in the language's letters. */
export function shownLine(text) {
  return (text || "").split(" ").map(shownSan).join(" ");
}

/** The move ``typed`` on the page (the language's piece letters, or English SAN, or UCI) as a legal move's
 * UCI, from the prompt's ``legal`` SAN by UCI; null when it reads as none of them (the server then says
 * why). The language's reading comes first: in French, Spanish and Italian R is the king. */
export function readMove(typed, legal) {
  const text = (typed || "").trim();
  if (!text || !legal) return null;
  const bare = (move) => move.replace(/[+#!?]+$/, "").replaceAll("0", "O");
  const byMove = new Map(Object.entries(legal).map(([uci, move]) => [bare(move), uci]));
  for (const reading of [english(text), text]) {
    const found = byMove.get(bare(reading));
    if (found) return found;
  }
  return null;
}

/** ``text`` typed with the language's piece letters, written with English ones. */
function english(text) {
  const letters = catalog.letters;
  let out = "";
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    const at = letters.indexOf(char);
    out += at >= 0 && (index === 0 || "=(".includes(text[index - 1])) ? ENGLISH_LETTERS[at] : char;
  }
  return out;
}

/** Fetch options (``options``) that ask the server to answer in the page's language. */
export function speaking(options = {}) {
  const headers = new Headers(options.headers || {});
  headers.set("Accept-Language", catalog.language);
  return { ...options, headers };
}

/** The code of the language ``code`` names among the table's (``de-CH`` is ``de``), or null. */
function known(code) {
  if (!code) return null;
  const lower = String(code).toLowerCase();
  if (lower === PSEUDO) return PSEUDO;
  const base = lower.split(/[-_.]/)[0];
  return Object.hasOwn(languages, base) ? base : null;
}

/** Which language the page speaks: the one asked for in its address, else the person's choice, else the
 * table's (when it is set), else the browser's first the table speaks, else English. */
export function choose({ address = null, chosen = null, table = null, browser = [] }) {
  for (const code of [address, chosen, table, ...browser]) {
    const found = known(code);
    if (found) return found;
  }
  return "en";
}

function kept() {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

function keep(code) {
  try {
    localStorage.setItem(KEY, code);
  } catch {
    // a browser that keeps nothing: the page follows the table and the browser next time
  }
}

/** Choose the page's language, load its words and translate the page's HTML; call before the page writes
 * any text. Resolves to what GET /api/v1 said (null when the server did not answer). */
export async function startLanguage() {
  let info = null;
  try {
    const response = await fetch("/api/v1");
    if (response.ok) info = await response.json();
  } catch {
    // the page shows English and reconnects; its words come with the next load
  }
  if (info && info.languages) languages = info.languages;
  const code = choose({
    address: asked,
    chosen: kept(),
    table: info ? info.language : null,
    browser: navigator.languages || [navigator.language],
  });
  if (asked !== null && known(asked)) keep(code); // a link's ?lang= is a choice, kept as the menu's are
  if (code !== "en") {
    try {
      const response = await fetch(`/i18n/${encodeURIComponent(code)}.json`);
      if (response.ok) catalog = await response.json();
    } catch {
      // English, as the page is written
    }
  }
  rules = new Intl.PluralRules(locale());
  document.documentElement.lang = locale();
  translate(document);
  document.documentElement.classList.remove("i18n-loading");
  return info;
}

/** Translate the marked texts and attributes under ``root`` (see the top of this file). */
export function translate(root) {
  for (const element of root.querySelectorAll("[data-i18n]")) {
    if (!element.dataset.i18n) element.dataset.i18n = element.textContent.replace(/\s+/g, " ").trim();
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of root.querySelectorAll("[data-i18n-attrs]")) {
    for (const name of element.dataset.i18nAttrs.split(/\s+/)) {
      const message = element.getAttribute(name);
      if (message) element.setAttribute(name, t(message));
    }
  }
}

/** The language menu in ``select``: each language in its own name, the page's chosen; a choice is kept in
 * this browser and the page loads again in it. */
export function setUpLanguageMenu(select) {
  const codes = Object.keys(languages);
  if (language() === PSEUDO) codes.push(PSEUDO);
  select.replaceChildren(
    ...codes.map((code) => {
      const option = document.createElement("option");
      option.value = code;
      option.lang = code === PSEUDO ? "en" : code;
      option.textContent = code === PSEUDO ? "⟦Ƥšéüđö⟧" : languages[code];
      return option;
    }),
  );
  select.value = language();
  select.addEventListener("change", () => {
    keep(select.value);
    location.reload();
  });
}
