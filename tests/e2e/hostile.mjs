// The hostile-content stage's parts: the corpus (fixtures/hostile.md, fixtures/hostile-request.json)
// with its placeholders filled in, a local listener every remote URL in it points at, a hook
// installed in the webview before the corpus is opened, and the DOM inspection run after.
//
// What "inert" means here (asserted by desktop.test.mjs, documented in docs/security-tests.md):
// no payload ran (window.__pwned, document.title and localStorage untouched, no <script> or
// frame added, no CSP violation), no element anywhere has an on* attribute, the message pane
// holds no active or foreign element, no URL attribute but an intercepted http(s)/mailto link,
// no style attribute or fixed-position box in rendered content, and the listener saw nothing.

import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

/** The message's title (≤ 180 characters once filled in). */
export const MESSAGE_TITLE = 'HOSTILE-MESSAGE <img src=x onerror="{{SHORT}}"> <script>{{SHORT}}</script> [x](javascript:{{SHORT}})';

/** Texts of the corpus that must stay visible in the message body (harmless parts, link texts). */
export const VISIBLE_IN_MESSAGE = [
  "HARMLESS-INTRO",
  "HARMLESS-MIDDLE",
  "HARMLESS-END",
  "a harmless link",
  "MDLINK-JS",
  "REFLINK-JS",
  "TASK-ITEM",
  "TABLE-HEAD",
];
/** Texts of the request that must stay visible (labels and blocks show their payloads as text). */
export const VISIBLE_IN_REQUEST = [
  "HARMLESS-REQUEST-BODY",
  "CODE-BLOCK",
  "DIFF-ADDED",
  "JSON-KEY",
  "TABLE-CELL",
  "FIELD-LABEL",
  "FIELD-HELP",
  "OPTION-LABEL",
  "OPTION-DESC",
];

/**
 * Texts whose elements the test clicks: link candidates with javascript:, vbscript: and data:
 * targets (raw HTML and Markdown). A click must do nothing harmful.
 */
export const CLICK_CANDIDATES = ["MDLINK-JS", "MDLINK-ENTITY", "MDLINK-DATA", "REFLINK-JS", "JSLINK-RAW", "MDLINK-VBS"];

/**
 * A TCP listener on 127.0.0.1 that counts every connection (an http:, https: or
 * protocol-relative fetch of any kind opens one) and answers HTTP with 204.
 */
export async function startListener() {
  const hits = [];
  const server = createServer((socket) => {
    let head = "";
    hits.push({ at: new Date().toISOString(), firstLine: "" });
    const hit = hits.at(-1);
    socket.on("data", (chunk) => {
      if (!hit.firstLine) {
        head += chunk.toString("latin1");
        const end = head.indexOf("\r\n");
        hit.firstLine = (end >= 0 ? head.slice(0, end) : head).slice(0, 200);
        socket.end("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return {
    port,
    host: `127.0.0.1:${port}`,
    origin: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The script payload: marks the page, renames it, writes storage, then phones the listener. */
function payload(origin) {
  return `window.__pwned=(window.__pwned||0)+1;document.title='pwned';localStorage.setItem('pwned','1');fetch('${origin}/js')`;
}

function fill(text, listener) {
  return text
    .replaceAll("{{JS}}", payload(listener.origin))
    .replaceAll("{{SHORT}}", "window.__pwned=1")
    .replaceAll("{{ORIGIN}}", listener.origin)
    .replaceAll("{{HOST}}", listener.host);
}

/**
 * The corpus with its placeholders filled for `listener`: `message` is `herald send --json`
 * content (fixtures/hostile.md as the body), `request` is `herald ask --json` content (a form).
 */
export function corpus(listener) {
  const body = fill(readFileSync(join(FIXTURES, "hostile.md"), "utf8"), listener);
  const request = JSON.parse(fill(readFileSync(join(FIXTURES, "hostile-request.json"), "utf8"), listener));
  const message = { title: fill(MESSAGE_TITLE, listener), body };
  return { message, request };
}

/**
 * Installed in the webview before the corpus is opened: records the page's title and storage,
 * counts elements added anywhere that can run or load something (a MutationObserver) and CSP
 * violations. `window.__heraldHook` surviving to the end also proves the page never navigated.
 */
export const INSTALL_HOOK = `
  const hook = { title: document.title, storage: JSON.stringify(Object.entries(localStorage)), added: [], csp: [] };
  const watched = new Set(["SCRIPT", "IFRAME", "FRAME", "OBJECT", "EMBED", "APPLET", "BASE", "META", "LINK"]);
  hook.observer = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        for (const el of [node, ...node.querySelectorAll("*")]) {
          if (watched.has(el.tagName.toUpperCase())) hook.added.push(el.tagName.toLowerCase());
        }
      }
    }
  });
  hook.observer.observe(document.documentElement, { childList: true, subtree: true });
  document.addEventListener("securitypolicyviolation", (e) => {
    hook.csp.push(e.violatedDirective + " " + String(e.blockedURI).slice(0, 120));
  });
  hook.resources = performance.getEntriesByType("resource").length;
  window.__heraldHook = hook;
  return true;
`;

/**
 * Inspects the page: global state against the hook, every element's attributes, and what the
 * element `arguments[0]` (the message pane) holds. Returns lists of findings (empty = inert).
 */
export const INSPECT = `
  const pane = arguments[0];
  const listenerHost = arguments[1];
  const hook = window.__heraldHook;
  const found = { state: [], handlers: [], elements: [], urls: [], styles: [], resources: [] };
  const where = (el) => {
    const id = el.closest("[data-testid]")?.getAttribute("data-testid") ?? "-";
    return el.tagName.toLowerCase() + " in " + id;
  };
  if (!hook) found.state.push("the hook is gone: the page navigated or reloaded");
  if (window.__pwned !== undefined) found.state.push("window.__pwned = " + String(window.__pwned));
  if (hook && document.title !== hook.title) found.state.push("document.title changed to " + document.title);
  if (localStorage.getItem("pwned") !== null) found.state.push("localStorage.pwned was set");
  if (hook && JSON.stringify(Object.entries(localStorage)) !== hook.storage) found.state.push("localStorage changed");
  if (hook && hook.added.length) found.state.push("elements added: " + hook.added.join(","));
  if (hook && hook.csp.length) found.state.push("CSP violations: " + hook.csp.join("; "));

  // No element anywhere in the page has an event-handler attribute (Svelte never writes one).
  for (const el of document.querySelectorAll("*")) {
    for (const attr of el.attributes) {
      if (attr.name.toLowerCase().startsWith("on")) found.handlers.push(where(el) + " [" + attr.name + "]");
    }
  }

  const banned = new Set(["script", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "meta",
    "link", "style", "svg", "math", "img", "video", "audio", "source", "picture", "foreignobject", "template",
    "noscript", "marquee", "xmp", "image", "animate", "set", "portal", "canvas"]);
  const formControls = new Set(["form", "input", "select", "textarea", "button", "option", "label", "fieldset", "legend"]);
  const urlAttrs = new Set(["href", "src", "srcset", "action", "formaction", "xlink:href", "poster", "data", "background",
    "ping", "srcdoc", "codebase", "cite", "dynsrc", "lowsrc", "longdesc", "manifest", "usemap", "archive", "classid", "icon"]);
  const answerForm = pane.querySelector('[data-testid="answer-form"]');
  for (const el of pane.querySelectorAll("*")) {
    const tag = el.tagName.toLowerCase();
    const ours = answerForm && (el === answerForm || answerForm.contains(el));
    if (banned.has(tag)) found.elements.push(where(el));
    if (formControls.has(tag) && !ours) {
      const taskBox = tag === "input" && el.getAttribute("type") === "checkbox" && el.hasAttribute("disabled");
      // The pane's own buttons (actions, Copy, Reveal) are not rendered content.
      const rendered = el.closest(".rendered, .blocks .content");
      if (rendered && !taskBox) found.elements.push(where(el));
      if (tag === "form") found.elements.push(where(el));
    }
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      const value = attr.value.trim();
      if (urlAttrs.has(name) || name.endsWith(":href")) {
        const link = name === "href" && tag === "a";
        const external = link && el.classList.contains("external") && /(^|\\s)noopener(\\s|$)/.test(el.getAttribute("rel") ?? "");
        const scheme = /^(https?:\\/\\/[^/]|mailto:)/i.test(value);
        let toListener = false;
        try {
          toListener = new URL(value, "http://base.invalid/").host === listenerHost;
        } catch {
          toListener = false;
        }
        if (!(external && scheme && !toListener)) found.urls.push(where(el) + " " + name + "=" + value.slice(0, 80));
      }
      if (name === "style" && el.closest(".rendered, .blocks .content")) found.styles.push(where(el) + " style=" + value.slice(0, 80));
    }
    if (getComputedStyle(el).position === "fixed") found.styles.push(where(el) + " is position:fixed");
  }

  for (const entry of performance.getEntriesByType("resource")) {
    const name = String(entry.name);
    const ours = /^(tauri|ipc|asset):\\/\\//.test(name) || /^https?:\\/\\/(ipc|tauri|asset)\\.localhost(\\/|$)/.test(name);
    if (!ours || name.includes(listenerHost)) found.resources.push(name.slice(0, 120));
  }
  return found;
`;

/** Findings of INSPECT as one readable list; empty when everything is inert. */
export function problems(found) {
  return Object.entries(found).flatMap(([kind, items]) => items.map((item) => `${kind}: ${item}`));
}
