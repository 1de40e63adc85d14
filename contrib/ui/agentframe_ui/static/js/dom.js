// Building the page from data, safely: text is always set as text (a node's textContent,
// an attribute's value), never parsed as HTML; a link leads only inside this application.

/** An element: `h("a", {href: "#/x", class: "c", onclick: f}, "text", child, ...)`. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (name === "href") {
      node.setAttribute("href", safeHref(value));
    } else if (name === "class") {
      node.className = value;
    } else {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  add(node, children);
  return node;
}

function add(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) add(node, child);
    else if (child instanceof Node) node.append(child);
    else node.append(document.createTextNode(String(child)));
  }
}

/** Only this application's own pages (`#/...`): any other scheme (`javascript:`, a URL a
 * model wrote) becomes an inert `#`. */
export function safeHref(value) {
  const text = String(value);
  return text.startsWith("#/") ? text : "#";
}

/** `node` emptied, then given `children`. */
export function fill(node, ...children) {
  node.replaceChildren();
  add(node, children);
  return node;
}

export function when(seconds) {
  return new Date(seconds * 1000).toLocaleString();
}

export function ms(value) {
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  return `${value.toFixed(value < 10 ? 2 : 0)} ms`;
}

/** JSON text indented, or the text itself when it is not JSON. */
export function pretty(value) {
  if (typeof value !== "string") return JSON.stringify(value, null, 2);
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

/** A disclosure: a summary line and, once opened, its body. */
export function details(summary, body, { open = false, cls = "" } = {}) {
  return h("details", { class: cls, open }, h("summary", {}, summary), body);
}
