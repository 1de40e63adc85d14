// The application: a page per route of the location's hash, the API key asked for when
// the server needs one, errors shown as text.

import { ApiError, NeedKey, setKey } from "./api.js";
import { fill, h } from "./dom.js";
import * as chat from "./chat.js";
import * as graph from "./kg.js";
import * as sessions from "./sessions.js";
import * as session from "./session.js";
import * as stack from "./stack.js";
import * as traces from "./traces.js";

const main = document.getElementById("main");
let leave = null; // the page's clean-up (a chat stops its run)

const ROUTES = [
  [/^#\/chat$/, "chat", () => chat.render],
  [/^#\/sessions$/, "sessions", () => sessions.render],
  [/^#\/sessions\/([^/]+)$/, "sessions", (m) => (el, q) => session.render(el, q, m[1])],
  [
    /^#\/sessions\/([^/]+)\/children\/([^/]+)$/,
    "sessions",
    (m) => (el, q) => session.render(el, q, m[1], m[2]),
  ],
  [/^#\/traces$/, "traces", () => traces.render],
  [/^#\/traces\/([0-9a-f]+)$/, "traces", (m) => (el, q) => traces.renderTrace(el, q, m[1])],
  [/^#\/kg$/, "kg", () => graph.render],
  [/^#\/stack$/, "stack", () => stack.render],
];

async function route() {
  if (leave) leave();
  leave = null;
  const [path, query] = (location.hash || "#/chat").split("?");
  const params = new URLSearchParams(query || "");
  for (const [pattern, page, view] of ROUTES) {
    const match = pattern.exec(path);
    if (!match) continue;
    for (const link of document.querySelectorAll("nav a")) {
      if (link.dataset.page === page) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    const decoded = match.map((part) => (part ? decodeURIComponent(part) : part));
    try {
      leave = (await view(decoded)(main, params)) || null;
    } catch (err) {
      shown(err);
    }
    return;
  }
  fill(main, h("p", { class: "error" }, "No such page."), h("a", { href: "#/chat" }, "Chat"));
}

function shown(err) {
  if (err instanceof NeedKey) return askKey();
  const text = err instanceof ApiError ? err.message : `${err.name}: ${err.message}`;
  fill(main, h("p", { class: "error", role: "alert" }, text));
}

function askKey() {
  const input = h("input", {
    type: "password",
    id: "api-key",
    autocomplete: "off",
    required: true,
    "aria-describedby": "key-why",
  });
  const form = h(
    "form",
    {
      class: "key",
      onsubmit: (event) => {
        event.preventDefault();
        setKey(input.value.trim());
        route();
      },
    },
    h("h1", {}, "API key"),
    h("p", { id: "key-why" }, "This server needs an API key. It is kept for this tab only."),
    h("label", { for: "api-key" }, "Key"),
    input,
    h("button", { type: "submit" }, "Use this key"),
  );
  fill(main, form);
  input.focus();
}

window.addEventListener("hashchange", route);
window.addEventListener("unhandledrejection", (event) => shown(event.reason));
export const ready = route();
