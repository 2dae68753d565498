// The start page's forms and the invitation's: a name, play the computer, create a room
// with its rules, join or watch with a code, sit down at a link's table, watch instead.

import { fragment, setHash } from "./address.js";
import { said } from "./catalog.js";
import { $ } from "./page.js";
import { trouble } from "./screens.js";
import { enter } from "./session.js";
import { route } from "./sitdown.js";
import { MAX_DEAL, MAX_MINUTES, MAX_ROUND_LIMIT } from "./vocabulary.js";

/** The create form's field called `name`. */
export const field = (name) => document.querySelector(`#create-form [name="${name}"]`);

// A name's limit counts code points, as the server does (an input's maxlength counts UTF-16
// units: it is set to twice the limit, so that it never stops a name the server takes).
const MOST_NAME_CHARACTERS = 24;

/** The name in `input`, trimmed to the limit, or null (the browser says it is missing). */
function typedName(page, input) {
  const name = [...input.value.trim()].slice(0, MOST_NAME_CHARACTERS).join("").trim();
  if (!name) input.reportValidity();
  else page.seats.name = name;
  return name || null;
}

/** The create_room message for the create form's `form` (FormData) and `name`, or why
 * not (a said() message: a limit or a deal out of range). */
export function roomOpening(form, name) {
  const players = Number(form.get("players"));
  const rules = { players, face_down: Number(form.get("face_down")) };
  for (const key of ["aces", "short_war", "won_cards", "tie_break"]) rules[key] = form.get(key);
  const opening = { type: "create_room", name, rules, computers: Math.min(Number(form.get("computers")), players - 1), talk: form.get("talk") };
  const limit = form.get("limit");
  const number = Number(form.get("limit_number"));
  const high = limit === "minutes" ? MAX_MINUTES : MAX_ROUND_LIMIT;
  if (/minutes|rounds/.test(limit) && !(Number.isInteger(number) && number >= 1 && number <= high)) {
    return said("page.bad_limit", { what: limit, most: high });
  }
  if (limit === "minutes") opening.minutes = number;
  else if (limit !== "none") rules.round_limit = limit === "rounds" ? number : Number(limit);
  const deal = String(form.get("deal")).replace(/\s+/g, "");
  if (deal && !(/^\d{1,20}$/.test(deal) && BigInt(deal) <= MAX_DEAL)) return said("page.bad_deal", { most: String(MAX_DEAL) });
  if (deal) opening.deal = BigInt(deal) <= Number.MAX_SAFE_INTEGER ? Number(deal) : BigInt(deal);
  if (form.get("password")) opening.password = form.get("password");
  return opening;
}

/** A code as typed into a form (`form`: FormData), upper case, or null if it cannot be one. */
export function typedCode(form) {
  const code = String(form.get("code")).trim().toUpperCase();
  return /^[A-Z0-9-]{4,32}$/.test(code) ? code : null;
}

export function playTheComputer(page, event) {
  event?.preventDefault();
  const name = typedName(page, $("start-name"));
  if (name === null) return;
  setHash("");
  enter(page, { type: "create_room", name, rules: {}, computers: 1 });
}

export function createRoom(page, event) {
  event.preventDefault();
  const name = typedName(page, $("start-name"));
  if (name === null) return undefined;
  const opening = roomOpening(new FormData(event.target), name);
  if ("key" in opening) return trouble(page.words.say(opening));
  setHash("");
  return enter(page, opening);
}

export function joinWithCode(page, event) {
  event.preventDefault();
  const code = typedCode(new FormData(event.target));
  if (code === null) return trouble(page.words.text("page.bad_code", { example: "K7MX-QD4R" }));
  const watch = event.submitter?.value === "watch";
  const name = watch ? null : typedName(page, $("start-name"));
  if (!watch && name === null) return undefined;
  setHash(`#${watch ? "watch" : "join"}=${code}`);
  return enter(page, watch ? { type: "watch_room", code } : { type: "join_room", code, name });
}

export function acceptInvite(page, event) {
  event.preventDefault();
  const name = typedName(page, $("invite-name"));
  const [, code] = fragment();
  // someone else at a computer that keeps another name's seat: a seat of their own
  if (name !== null && code !== null) enter(page, { type: "join_room", code, name }, { fresh: true });
}

export function watchInstead(page, event) {
  event.preventDefault();
  const code = typedCode(new FormData(event.target));
  if (code === null) return trouble(page.words.text("page.bad_code", { example: "9HWT-2CBN" }));
  setHash(`#watch=${code}`);
  return route(page);
}

/** The create form follows its choices: the limit's number field, the computers a
 * table of that many players can have. */
export function formChanged(page, event) {
  const { words } = page;
  const limit = field("limit").value;
  $("limit-number-field").hidden = !/minutes|rounds/.test(limit);
  const label = limit === "minutes" ? words.text("page.limit_number_minutes", { most: MAX_MINUTES }) : words.text("page.limit_number_rounds");
  $("limit-number-label").textContent = label;
  const most = Number(page.doc.querySelector('#create-form [name="players"]:checked').value) - 1;
  const computers = field("computers");
  for (const option of computers.options) option.disabled = Number(option.value) > most;
  if (Number(computers.value) > most || event?.target.name === "players") computers.value = String(Math.min(Number(computers.value), most));
}
