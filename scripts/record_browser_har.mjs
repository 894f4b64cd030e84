// Record a HAR file with a real browser: Chromium's own network stack fetches
// streams that `inspector serve` replays, and Playwright writes what the browser
// saw as HAR 1.2 (`recordHar`, bodies embedded). This is how
// tests/fixtures/har/chromium-playwright-four-providers.har was made.
//
// Needs Chromium (Debian: `apt-get install chromium`) and playwright-core in
// the CURRENT folder (it never downloads a browser):
//
//   mkdir -p /tmp/harrec && cd /tmp/harrec && npm install playwright-core
//   node /work/main/scripts/record_browser_har.mjs --out browser.har \
//       --inspector /work/main/.venv/bin/inspector --captures /work/main/captures \
//       openai-chat/tool-call-fragmented anthropic/reasoning ...
//
// Each PROVIDER/NAME is a stream served from CAPTURES/PROVIDER/NAME.jsonl (or
// .sse). The capture's recorded request body is sent again, its model set to
// NAME (how serve picks the stream), by `fetch` in a page of serve's own
// origin (no CORS preflight involved); each response is read to its end in the
// page before the next request. Exit code 2 on bad usage or a failed launch.

import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const USAGE =
  "usage: node record_browser_har.mjs --out FILE.har [--inspector PATH] [--captures DIR] " +
  "[--chromium PATH] [--speed X] PROVIDER/NAME...";

const ENDPOINTS = {
  "openai-chat": () => "/v1/chat/completions",
  "openai-responses": () => "/v1/responses",
  anthropic: () => "/v1/messages",
  gemini: (name) => `/v1beta/models/${encodeURIComponent(name)}:streamGenerateContent?alt=sse`,
};

const MINIMAL_BODIES = {
  "openai-chat": { stream: true, messages: [{ role: "user", content: "[prompt]" }] },
  "openai-responses": { stream: true, input: "[prompt]" },
  anthropic: { stream: true, max_tokens: 1024, messages: [{ role: "user", content: "[prompt]" }] },
  gemini: { contents: [{ role: "user", parts: [{ text: "[prompt]" }] }] },
};

// Headers a browser client of each API would add (never a key: serve needs none).
const EXTRA_HEADERS = {
  anthropic: { "anthropic-version": "2023-06-01" },
};

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function parseArgs(argv) {
  const options = {
    out: null,
    inspector: "inspector",
    captures: "captures",
    chromium: "/usr/bin/chromium",
    speed: "1",
    specs: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const flag = arg.startsWith("--") ? arg.slice(2) : null;
    if (flag === null) {
      options.specs.push(arg);
    } else if (flag in options && flag !== "specs" && i + 1 < argv.length) {
      options[flag] = argv[++i];
    } else {
      throw new Error(`unknown or incomplete option ${arg}\n${USAGE}`);
    }
  }
  if (!options.out || options.specs.length === 0) throw new Error(USAGE);
  return options;
}

// The capture's header line (its first line), without reading the whole file.
function captureHeader(path) {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(1 << 20);
    const size = readSync(fd, buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, size).indexOf(0x0a);
    if (end < 0) throw new Error(`${path}: no header line in its first MiB`);
    const header = JSON.parse(buffer.subarray(0, end).toString("utf8"));
    if (header.type !== "header") throw new Error(`${path}: not a capture (no header record)`);
    return header;
  } finally {
    closeSync(fd);
  }
}

function requestFor(spec, capturesDir) {
  const [provider, name, ...rest] = spec.split("/");
  if (!(provider in ENDPOINTS) || !name || rest.length) {
    throw new Error(`${spec}: expected PROVIDER/NAME with PROVIDER one of ${Object.keys(ENDPOINTS)}`);
  }
  const capture = join(capturesDir, provider, `${name}.jsonl`);
  // A raw .sse file records no request: send the smallest streaming body.
  const recorded = existsSync(capture) ? captureHeader(capture).request?.body : null;
  const body = { ...(recorded ?? MINIMAL_BODIES[provider]) };
  if (provider !== "gemini") body.model = name;
  return {
    spec,
    url: ENDPOINTS[provider](name),
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...(EXTRA_HEADERS[provider] ?? {}),
    },
    body: JSON.stringify(body),
  };
}

// Start `inspector serve` on a free loopback port; resolve with its base URL.
function startServe(options) {
  const child = spawn(
    options.inspector,
    ["serve", options.captures, "--host", "127.0.0.1", "--port", "0", "--speed", options.speed],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let seen = "";
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`inspector serve exited (${code}) before serving`)));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (data) => {
      seen += data;
      const match = /serving \d+ streams on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match) {
        child.stdout.removeAllListeners("data");
        child.stdout.resume();
        resolve({ child, base: match[1] });
      }
    });
  });
}

// Runs in the page: the browser's own fetch, read to the end. A stream the
// server breaks rejects the fetch or the read; that is reported, not fatal, so
// the HAR keeps what the browser recorded of it.
async function fetchInPage({ url, headers, body }) {
  let response = null;
  try {
    response = await fetch(url, { method: "POST", headers, body });
    const text = await response.text();
    return `${response.status} ${response.headers.get("content-type")} ${text.length} characters`;
  } catch (error) {
    const status = response ? `${response.status} ` : "";
    return `${status}failed in the browser: ${error}`;
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const requests = options.specs.map((spec) => requestFor(spec, options.captures));
  const require = createRequire(pathToFileURL(join(process.cwd(), "noop.js")).href);
  const { chromium } = require("playwright-core");

  const { child, base } = await startServe(options);
  child.removeAllListeners("exit");
  try {
    const browser = await chromium.launch({
      executablePath: options.chromium,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    console.log(`chromium ${browser.version()}, serve at ${base}`);
    const context = await browser.newContext({
      recordHar: { path: options.out, content: "embed" },
    });
    const page = await context.newPage();
    // Any same-origin document will do: serve's `GET /` listing.
    await page.goto(`${base}/`);
    for (const request of requests) {
      console.log(`${request.spec}: ${await page.evaluate(fetchInPage, request)}`);
    }
    await context.close(); // writes the HAR
    await browser.close();
    console.log(`wrote ${options.out}`);
  } finally {
    child.kill("SIGTERM");
  }
}

main().catch((error) => {
  console.error(String(error.message ?? error));
  process.exit(2);
});
