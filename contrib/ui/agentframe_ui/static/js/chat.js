// Chat with an agent over AG-UI: the answer streams in, each server-side tool call is a
// card (arguments, result, time), each sub-agent a nested card that opens its session.

import { agui, get } from "./api.js";
import { question } from "./question.js";
import { details, fill, h, ms, pretty } from "./dom.js";

export async function render(main, params) {
  const [models, listed] = await Promise.all([get("/v1/models"), get("/v1/sessions?limit=50")]);
  let thread = params.get("session") || "";
  const agents = h(
    "select",
    { id: "agent", "aria-label": "Agent" },
    models.data.map((m) => h("option", { value: m.id }, m.id)),
  );
  if (params.get("agent")) agents.value = params.get("agent");
  const sessionChoice = h(
    "select",
    { id: "session", "aria-label": "Session" },
    h("option", { value: "" }, "New session"),
    listed.data.map((s) => h("option", { value: s.id }, s.title || s.id)),
  );
  const log = h("div", { class: "log", id: "log", role: "log", "aria-live": "polite" });
  const input = h("textarea", {
    id: "prompt",
    rows: 3,
    placeholder: "Message (Enter sends, Shift+Enter: a new line)",
    "aria-label": "Message",
  });
  const send = h("button", { type: "submit", id: "send" }, "Send");
  const stop = h("button", { type: "button", id: "stop", disabled: true }, "Stop");
  const form = h("form", { class: "composer" }, input, h("div", { class: "actions" }, send, stop));
  fill(
    main,
    h("h1", { class: "sr-only" }, "Chat"),
    h(
      "div",
      { class: "toolbar" },
      h("label", { for: "agent" }, "Agent"),
      agents,
      h("label", { for: "session" }, "Session"),
      sessionChoice,
    ),
    log,
    form,
  );
  let running = null;

  /** Continue session `id` ("" for a new one); `stored`: it has a history to show. */
  async function choose(id, stored = true) {
    thread = id;
    sessionChoice.value = id;
    if (sessionChoice.value !== id) {
      sessionChoice.append(h("option", { value: id }, id));
      sessionChoice.value = id;
    }
    history.replaceState(null, "", `#/chat?session=${encodeURIComponent(id)}`);
    log.replaceChildren();
    if (!id || !stored) return;
    const shown = await get(`/v1/sessions/${encodeURIComponent(id)}`);
    for (const entry of shown.entries) {
      if (entry.kind === "user" || entry.kind === "assistant") {
        log.append(h("div", { class: `msg ${entry.kind}` }, entry.content));
      }
    }
    log.scrollTop = log.scrollHeight;
  }

  sessionChoice.addEventListener("change", () => choose(sessionChoice.value));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  stop.addEventListener("click", () => running && running.abort());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || running) return;
    input.value = "";
    if (!thread) await choose(crypto.randomUUID().replaceAll("-", ""), false);
    log.append(h("div", { class: "msg user" }, text));
    running = new AbortController();
    send.disabled = true;
    stop.disabled = false;
    try {
      await run(log, agents.value, thread, text, running.signal);
    } finally {
      running = null;
      send.disabled = false;
      stop.disabled = true;
      input.focus();
    }
  });
  if (thread) await choose(thread);
  input.focus();
  return () => running && running.abort();
}

/** One run: its events drawn into `log` as they come. */
async function run(log, agent, thread, text, signal) {
  const turn = h("div", { class: "turn" });
  log.append(turn);
  const follow = () => (log.scrollTop = log.scrollHeight);
  const tools = new Map(); // toolCallId -> its card's parts
  // A sub-agent starts before its tool call's card exists: tool call id -> its child cards
  // until then, and each child's session id -> its card.
  const children = new Map();
  let message = null;
  const input = {
    threadId: thread,
    runId: crypto.randomUUID(),
    state: {},
    messages: [{ id: crypto.randomUUID(), role: "user", content: text }],
    tools: [],
    context: [],
    forwardedProps: {},
  };
  try {
    for await (const event of agui(agent, input, signal)) {
      switch (event.type) {
        case "TEXT_MESSAGE_START":
          message = h("div", { class: "msg assistant", "data-message": event.messageId });
          turn.append(message);
          break;
        case "TEXT_MESSAGE_CONTENT":
          message.append(document.createTextNode(event.delta));
          break;
        case "TOOL_CALL_START":
          tools.set(event.toolCallId, toolCard(turn, event, children.get(event.toolCallId)));
          break;
        case "TOOL_CALL_ARGS":
          tools.get(event.toolCallId).args.append(document.createTextNode(event.delta));
          break;
        case "TOOL_CALL_END": {
          const card = tools.get(event.toolCallId);
          card.args.textContent = pretty(card.args.textContent);
          break;
        }
        case "TOOL_CALL_RESULT": {
          const card = tools.get(event.toolCallId);
          card.result.textContent = pretty(event.content);
          card.status.textContent = "done";
          break;
        }
        case "CUSTOM":
          custom(turn, event, { thread, tools, children });
          break;
        case "RUN_FINISHED":
          turn.append(finished(event, thread));
          break;
        case "RUN_ERROR":
          turn.append(h("p", { class: "error", role: "alert" }, event.message));
          break;
      }
      follow();
    }
  } catch (err) {
    if (err.name === "AbortError") turn.append(h("p", { class: "note" }, "Stopped."));
    else turn.append(h("p", { class: "error", role: "alert" }, err.message));
  }
}

function toolCard(turn, event, earlier) {
  const args = h("pre", { class: "args" });
  const result = h("pre", { class: "result" });
  const status = h("span", { class: "status" }, "running");
  const time = h("span", { class: "time" });
  const nested = h("div", { class: "children" }, earlier ? earlier.cards : []);
  const card = details(
    [h("span", { class: "name" }, event.toolCallName), " ", status, " ", time],
    [h("h3", {}, "Arguments"), args, h("h3", {}, "Result"), result, nested],
    { cls: "tool" },
  );
  card.dataset.call = event.toolCallId;
  turn.append(card);
  return { card, args, result, status, time, nested };
}

function custom(turn, event, { thread, tools, children }) {
  const value = event.value || {};
  if (event.name === "agentframe.tool_time") {
    const card = tools.get(value.tool_call_id);
    if (card) card.time.textContent = ms(value.seconds * 1000);
  } else if (event.name === "agentframe.subagent.started") {
    const card = childCard(thread, value);
    const parent = tools.get(value.tool_call_id);
    if (parent) parent.nested.append(card.card);
    else {
      const held = children.get(value.tool_call_id) || { cards: [] };
      children.set(value.tool_call_id, held);
      held.cards.push(card.card);
      turn.append(card.card);
    }
    children.set(value.session_id, card);
  } else if (event.name === "agentframe.subagent.tool") {
    const card = children.get(value.session_id);
    if (card) card.steps.append(h("li", {}, value.tool));
  } else if (event.name === "agentframe.subagent.finished") {
    const card = children.get(value.session_id);
    if (card) card.status.textContent = value.status || "finished";
  } else if (event.name === "agentframe.question") {
    const card = question(value);
    turn.append(card);
    card.querySelector("input, select, button").focus();
  } else if (event.name === "agentframe.compaction") {
    turn.append(
      h(
        "p",
        { class: "note compaction" },
        `Compacted ${value.subsumed} entries: ` +
          `${value.tokens_before} → ${value.tokens_after} tokens`,
      ),
    );
  }
}

function childCard(thread, value) {
  const status = h("span", { class: "status" }, "running");
  const steps = h("ol", { class: "steps" });
  const child = encodeURIComponent(value.session_id);
  const href = `#/sessions/${encodeURIComponent(thread)}/children/${child}`;
  const link = h("a", { href }, "Open the child's session");
  const card = details(
    [h("span", { class: "name" }, `sub-agent ${value.agent}`), " ", status],
    [h("p", { class: "task" }, value.task || ""), steps, link],
    { cls: "child" },
  );
  card.dataset.session = value.session_id;
  return { card, status, steps };
}

function finished(event, thread) {
  const usage = (event.usage && event.usage[0]) || {};
  const result = event.result || {};
  const cached = usage.cachedInputTokens || 0;
  const id = encodeURIComponent(thread);
  return h(
    "p",
    { class: "meta" },
    `${result.outcome || "finished"} · ${usage.inputTokens ?? "?"} in (${cached} cached) · `,
    `${usage.outputTokens ?? "?"} out · `,
    h("a", { href: `#/sessions/${id}` }, "history"),
    " · ",
    h("a", { href: `#/traces?session=${id}` }, "traces"),
  );
}
