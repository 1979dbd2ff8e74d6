// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// The playground page served at `/` when `IMAGO_PLAYGROUND` is on: one self-contained HTML
/// file (no external scripts, styles or fonts) to try options on a source and see the URL, the
/// result beside the original, their sizes in bytes and pixels, updated as the options change.
///
/// The page builds unsigned paths only. On a server with `IMAGO_KEY` it shows the path with a
/// placeholder where the signature goes and loads nothing: signing in the page would hand
/// anyone the key's power.
///
/// Its query string sets the initial options (`?src=…&w=300&h=200&rt=fill&g=sm&f=webp&q=80`),
/// so a playground state can be shared as a link.
enum Playground {
    /// The page, for a service mounted at `mount` (`""` at the root), signing or not.
    static func page(mount: String, signed: Bool) -> String {
        html.replacing(
            "__IMAGO_CONFIG__",
            with: "{\"mount\": \(JSONText.quoted(mount, html: true)), \"signed\": \(signed)}")
    }

    /// The Content-Security-Policy sent with the page: nothing from anywhere else.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' blob: data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    private static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Imago playground</title>
        <style>
          :root { font-family: system-ui, sans-serif; color: #1a202c; background: #f7fafc; }
          body { margin: 0 auto; max-width: 1200px; padding: 1rem 1.5rem; }
          h1 { font-size: 1.3rem; margin: 0 0 .8rem; }
          form { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: .6rem 1rem; align-items: end; }
          label { display: flex; flex-direction: column; font-size: .8rem; color: #4a5568; gap: .2rem; }
          label.wide { grid-column: 1 / -1; }
          input, select { font: inherit; font-size: .9rem; padding: .3rem .4rem; border: 1px solid #cbd5e0; border-radius: 4px; background: #fff; }
          #path { margin: 1rem 0; padding: .6rem .8rem; background: #edf2f7; border-radius: 4px; font-family: ui-monospace, monospace;
                  font-size: .85rem; word-break: break-all; }
          #path a { color: #2b6cb0; }
          .notice { color: #975a16; background: #fefcbf; padding: .5rem .8rem; border-radius: 4px; font-size: .85rem; }
          .panes { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
          figure { margin: 0; background: #fff; border: 1px solid #e2e8f0; border-radius: 6px; padding: .6rem; min-height: 120px; }
          figcaption { font-size: .85rem; color: #4a5568; margin-bottom: .4rem; }
          figure img { max-width: 100%; background: repeating-conic-gradient(#e2e8f0 0 25%, #fff 0 50%) 0 0 / 16px 16px; }
          .error { color: #c53030; font-size: .85rem; white-space: pre-wrap; }
        </style>
        </head>
        <body>
        <h1>Imago playground</h1>
        <form id="options" autocomplete="off" onsubmit="return false">
          <label class="wide">Source URL <input id="src" type="url" placeholder="https://example.com/photo.jpg"></label>
          <label>Width <input id="w" type="number" min="0" max="8192" value="300"></label>
          <label>Height <input id="h" type="number" min="0" max="8192" value="0"></label>
          <label>Resizing type
            <select id="rt"><option>fit</option><option>fill</option><option>fill-down</option><option>force</option><option>auto</option></select></label>
          <label>Gravity
            <select id="g"><option value="ce">centre</option><option value="sm">smart</option><option value="obj:face">faces</option><option value="no">north</option>
              <option value="so">south</option><option value="ea">east</option><option value="we">west</option><option value="noea">north-east</option>
              <option value="nowe">north-west</option><option value="soea">south-east</option><option value="sowe">south-west</option></select></label>
          <label>Format
            <select id="f"><option value="">as the source</option><option>jpeg</option><option>png</option><option>webp</option>
              <option>avif</option><option>gif</option></select></label>
          <label>Quality <input id="q" type="number" min="0" max="100" value="0" title="0: the server's default"></label>
          <label>Enlarge <select id="el"><option value="">no</option><option value="1">yes</option></select></label>
          <label>Blur (sigma) <input id="bl" type="number" min="0" max="100" step="0.5" value="0"></label>
        </form>
        <div id="path">Enter a source URL.</div>
        <div id="signed-notice" class="notice" hidden>This server signs its URLs (IMAGO_KEY). The playground never signs: sign the path
          above with your key (<code>imago-server sign</code>) and replace <code>SIGNATURE</code>. Previews are off.</div>
        <div class="panes">
          <figure id="original-pane"><figcaption>Original: <span id="original-info">-</span></figcaption>
            <img id="original" alt="original"><div id="original-error" class="error"></div></figure>
          <figure id="result-pane"><figcaption>Result: <span id="result-info">-</span></figcaption>
            <img id="result" alt="result"><div id="result-error" class="error"></div></figure>
        </div>
        <script>
        "use strict";
        const CONFIG = __IMAGO_CONFIG__;
        const $ = (id) => document.getElementById(id);
        const fields = ["src", "w", "h", "rt", "g", "f", "q", "el", "bl"];
        let generation = 0;
        let timer = null;
        const controllers = {};

        // A plain source in a path: the characters that would end or split it are escaped.
        function escapeSource(s) {
          return s.replace(/%/g, "%25").replace(/\?/g, "%3F").replace(/#/g, "%23").replace(/@/g, "%40").replace(/ /g, "%20");
        }

        function options() {
          const v = Object.fromEntries(fields.map((k) => [k, $(k).value.trim()]));
          const parts = [];
          const w = parseInt(v.w || "0", 10) || 0, h = parseInt(v.h || "0", 10) || 0;
          if (w > 0 || h > 0) parts.push(`rs:${v.rt}:${w}:${h}${v.el ? ":1" : ""}`);
          if (v.g && v.g !== "ce") parts.push(`g:${v.g}`);
          const q = parseInt(v.q || "0", 10) || 0;
          if (q > 0) parts.push(`q:${q}`);
          const bl = parseFloat(v.bl || "0") || 0;
          if (bl > 0) parts.push(`bl:${bl}`);
          return { source: v.src, parts, format: v.f };
        }

        function buildPath(o, extra) {
          const signature = CONFIG.signed ? "SIGNATURE" : "_";
          const parts = (extra || []).concat(o.parts);
          return `${CONFIG.mount}/${signature}/${parts.length ? parts.join("/") + "/" : ""}plain/${escapeSource(o.source)}${o.format ? "@" + o.format : ""}`;
        }

        function formatBytes(n) {
          return n >= 1048576 ? (n / 1048576).toFixed(2) + " MB" : n >= 1024 ? (n / 1024).toFixed(1) + " KB" : n + " B";
        }

        async function show(which, url, gen) {
          const img = $(which), info = $(which + "-info"), error = $(which + "-error");
          if (controllers[which]) controllers[which].abort();
          const controller = new AbortController();
          controllers[which] = controller;
          error.textContent = "";
          info.textContent = "loading…";
          img.dataset.state = "loading";
          try {
            const response = await fetch(url, { signal: controller.signal });
            const blob = await response.blob();
            if (gen !== generation) return;
            if (!response.ok) {
              let message = `${response.status}`;
              try { const body = JSON.parse(await blob.text()); message += ` ${body.error}: ${body.message}`; } catch (e) {}
              throw new Error(message);
            }
            const objectURL = URL.createObjectURL(blob);
            await new Promise((resolve, reject) => {
              img.onload = resolve;
              img.onerror = () => reject(new Error("the browser cannot display " + (response.headers.get("content-type") || "this type")));
              img.src = objectURL;
            });
            if (gen !== generation) return;
            img.dataset.width = img.naturalWidth;
            img.dataset.height = img.naturalHeight;
            img.dataset.bytes = blob.size;
            img.dataset.state = "loaded";
            info.textContent = `${img.naturalWidth}×${img.naturalHeight}, ${formatBytes(blob.size)}, ${response.headers.get("content-type") || "?"}`;
          } catch (e) {
            if (e.name === "AbortError") return;
            img.removeAttribute("src");
            img.dataset.state = "failed";
            info.textContent = "-";
            error.textContent = e.message;
          }
        }

        function update() {
          const o = options();
          const gen = ++generation;
          const params = new URLSearchParams();
          for (const k of fields) if ($(k).value.trim()) params.set(k, $(k).value.trim());
          history.replaceState(null, "", "?" + params.toString());
          if (!o.source) { $("path").textContent = "Enter a source URL."; return; }
          const path = buildPath(o);
          $("path").innerHTML = "";
          if (CONFIG.signed) {
            $("path").textContent = path;
            return;
          }
          const a = document.createElement("a");
          a.href = path;
          a.textContent = path;
          a.id = "result-link";
          $("path").appendChild(a);
          show("result", path, gen);
          show("original", buildPath({ source: o.source, parts: [], format: "" }, ["raw:1"]), gen);
        }

        function schedule() {
          clearTimeout(timer);
          timer = setTimeout(update, 250);
        }

        for (const k of fields) {
          $(k).addEventListener("input", schedule);
          $(k).addEventListener("change", schedule);
        }
        $("signed-notice").hidden = !CONFIG.signed;
        // The query string sets the controls, through the same events as typing does.
        const initial = new URLSearchParams(location.search);
        for (const k of fields) {
          if (initial.has(k)) {
            $(k).value = initial.get(k);
            $(k).dispatchEvent(new Event("input"));
          }
        }
        if (![...initial.keys()].length) update();
        </script>
        </body>
        </html>
        """#
}
