// What the server runs on (`GET /v1/stack`): the agents, the plugins installed, the config
// in force with its secrets masked; then doctor's checks (`POST /v1/doctor`, seconds later).

import { get, post } from "./api.js";
import { details, fill, h, pretty } from "./dom.js";

export async function render(main) {
  const stack = await get("/v1/stack");
  const running = h("p", { class: "note" }, "Running agentframe doctor --quick…");
  const doctor = h("div", { id: "doctor", "aria-busy": "true" }, running);
  const config = stack.config;
  fill(
    main,
    h("h1", {}, "Stack"),
    h("h2", {}, "Agents"),
    h("ul", {}, stack.agents.map((a) => h("li", {}, a))),
    h("h2", {}, "Doctor"),
    doctor,
    h("h2", {}, "Plugins"),
    h(
      "ul",
      { class: "plugins", id: "plugins" },
      stack.plugins.map((p) =>
        h(
          "li",
          { class: p.errors.length ? "fail" : "" },
          details(
            `${p.name} (${p.distribution || "?"} ${p.version || ""})`,
            h("pre", {}, pretty(p)),
          ),
        ),
      ),
    ),
    h("h2", {}, "Config"),
    config
      ? details(
          (config.file || "embedded default") +
            (config.profile ? ` (profile ${config.profile})` : ""),
          h("pre", { id: "config" }, pretty(config.data)),
          { open: true },
        )
      : h("p", { class: "note" }, "The server was started without a config."),
  );
  const checks = await post("/v1/doctor", {});
  doctor.removeAttribute("aria-busy");
  fill(
    doctor,
    checks.error
      ? h("p", { class: "error" }, checks.error)
      : h(
          "ul",
          { class: "checks" },
          checks.checks.map((c) =>
            h(
              "li",
              { class: c.ok ? "ok" : "fail" },
              `${c.ok ? "ok" : "FAIL"} ${c.name}: ${c.detail}`,
              c.fix ? h("p", { class: "note" }, c.fix) : null,
            ),
          ),
        ),
  );
}
