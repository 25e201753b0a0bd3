// Move sounds, made with WebAudio as they play (no sound files): a wooden knock for a move, a double one
// for a capture, a short rising chime for check and for the end of a game. Mutable; the choice is kept.
const KEY = "chessatron.sound";

let context = null;
let muted = localStorage.getItem(KEY) === "off";

/** Whether sounds play. */
export function soundOn() {
  return !muted;
}

/** Sounds on or off as the player's settings say (``[player] sound``), unless this browser has chosen. */
export function soundByDefault(on) {
  if (localStorage.getItem(KEY) === null) muted = !on;
}

/** Sounds on or off (kept in this browser). */
export function setSound(on) {
  muted = !on;
  localStorage.setItem(KEY, on ? "on" : "off");
  if (on) wake();
}

/** Browsers let a page make sound only after a tap or a click: call this from one. */
export function wake() {
  if (muted || !window.AudioContext) return;
  if (!context) context = new AudioContext();
  if (context.state === "suspended") context.resume().catch(() => {});
}

/** A knock: a short falling tone with a noisy attack, ``delay`` seconds from now. */
function knock(at, pitch, loudness) {
  const oscillator = context.createOscillator();
  const gain = context.createGain();
  oscillator.type = "triangle";
  oscillator.frequency.setValueAtTime(pitch, at);
  oscillator.frequency.exponentialRampToValueAtTime(pitch / 2, at + 0.08);
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(loudness, at + 0.004);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.12);
  oscillator.connect(gain).connect(context.destination);
  oscillator.start(at);
  oscillator.stop(at + 0.13);
}

function chime(at, pitches) {
  pitches.forEach((pitch, index) => {
    const start = at + index * 0.11;
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.type = "sine";
    oscillator.frequency.setValueAtTime(pitch, start);
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.18, start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.35);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(start);
    oscillator.stop(start + 0.36);
  });
}

/** Play ``kind``: "move", "capture", "check" or "end". */
export function play(kind) {
  if (muted || !context || context.state !== "running") return;
  const now = context.currentTime + 0.01;
  if (kind === "capture") {
    knock(now, 300, 0.5);
    knock(now + 0.07, 220, 0.45);
  } else if (kind === "check") {
    knock(now, 260, 0.45);
    chime(now + 0.05, [880]);
  } else if (kind === "end") {
    chime(now, [523, 659, 784]);
  } else {
    knock(now, 260, 0.45);
  }
}
