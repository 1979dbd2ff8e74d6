# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The Imago authors

"""scripts/bench-peers' parts timed inside one process: animations, and decoding in a sandboxed worker."""
import os
import sys

from bench.peerlib import CASE, GLIBC_TUNED, INPUTS, ITERATIONS, ROOT, ROUNDS, measure, run


def animations(imago, imago_cli):
    """Animated decode and encode beside Pillow and libvips: the 380-frame GIF, and the same
    animation as APNG and animated WebP (written by imago convert)."""
    gif = os.path.join(INPUTS, "muybridge.gif")
    apng = os.path.join(INPUTS, "muybridge.apng")
    webp = os.path.join(INPUTS, "muybridge.webp")
    for target in (apng, webp):
        if not os.path.exists(target):
            run([imago_cli, "convert", gif, target] + (["--quality", "80"] if target.endswith("webp") else []))
    py = [sys.executable, os.path.join(ROOT, "scripts", "bench", "pypeer.py")]
    # glibc hands each freed frame back to the kernel (frames are mmapped, and the heap top is
    # trimmed), so every later decode faults its pages in again. These tunables keep them; the
    # "glibc tuned" rows run Imago and Pillow alike under them.
    tuned = ["env", "GLIBC_TUNABLES=" + GLIBC_TUNED]
    peers = [("Imago", lambda m, f: [imago, m, f, "3"]),
             ("Imago lazy", lambda m, f: [imago, "anim-lazy", f, "3"] if m == "anim-all" else None),
             ("Imago, glibc tuned", lambda m, f: tuned + [imago, m, f, "3"] if m == "anim-all" else None),
             ("Pillow, glibc tuned", lambda m, f: tuned + py + ["pillow", m, f, "3"] if m == "anim-all" else None),
             ("Pillow", lambda m, f: py + ["pillow", m, f, "3"] if not (m.endswith("apng") and False) else None),
             ("libvips", lambda m, f: py + ["pyvips", m, f, "3"] if not f.endswith(".apng") else None)]
    cases = [("GIF 472x298, 380 frames: all frames", gif, "anim-all"),
             ("GIF: first frame", gif, "anim-first"),
             ("APNG 472x298, 380 frames: all frames", apng, "anim-all"),
             ("APNG: first frame", apng, "anim-first"),
             ("WebP 472x298, 380 frames: all frames", webp, "anim-all"),
             ("WebP: first frame", webp, "anim-first"),
             ("encode the GIF's frames as GIF", gif, "enc-gif"),
             ("encode the GIF's frames as animated WebP (q80)", gif, "enc-webp")]
    print("\n### Animations: decode (all frames, first frame) and encode\n")
    print("| case | peer | frames | first run ms | median ms | best ms | peak RSS MB | output bytes | first run vs Imago | best vs Imago |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    behind = []
    for label, path, mode in cases:
        best = {}
        cold = {}
        for _ in range(ROUNDS):
            for peer, cmd in peers:
                argv = cmd(mode, path)
                if argv is None:
                    continue
                m = measure(argv)
                if m is not None:
                    cold[peer] = min(cold.get(peer, m[4]), m[4])
                if m is not None and (peer not in best or best[peer] is None or m[1] < best[peer][1]):
                    best[peer] = m
                elif m is None:
                    best.setdefault(peer, None)
        base = best.get("Imago")
        for peer, _ in peers:
            if peer not in best:
                continue
            m = best[peer]
            if m is None:
                print(f"| {label} | {peer} | failed | | | | | | | |")
                continue
            median, fastest, size, rss, _ = m
            w, h = size.split("x")
            out = w if mode.startswith("enc") else ""
            ratio = fastest / base[1] if base else float("nan")
            cold_ratio = cold[peer] / cold["Imago"] if "Imago" in cold else float("nan")
            print(f"| {label} | {peer} | {h} | {cold[peer]:.1f} | {median:.1f} | {fastest:.1f} | {rss:.0f} | {out} | {cold_ratio:.2f}x | {ratio:.2f}x |")
            if peer == "Pillow, glibc tuned" and "Imago, glibc tuned" in best and best["Imago, glibc tuned"]:
                tuned_ratio = fastest / best["Imago, glibc tuned"][1]
                if tuned_ratio < 0.97:
                    behind.append(f"{label}: Pillow beats Imago when both are glibc tuned ({tuned_ratio:.2f}x best)")
            if peer in ("Pillow", "libvips") and (ratio < 0.97 or cold_ratio < 0.97):
                behind.append(f"{label}: {peer} ({cold_ratio:.2f}x first run, {ratio:.2f}x best)")
    print("\nlibvips does not read APNG. 'Imago lazy' decodes every frame through the lazy source in turn.")
    print("'First run' is each process's first iteration, before anything freed can be reused; 'best' is the")
    print("best later iteration, when the allocator hands back pages already faulted in.")
    print("\nImago behind a peer by more than 3%: " + ("; ".join(behind) if behind else "none"))


def isolation(timer):
    """A 256-px thumbnail per format, in process and in a worker, with libvips beside."""
    import pyvips
    jpeg = os.path.join(INPUTS, "photo-12mp.jpg")
    for name, save in (("photo-12mp.tif", lambda im, p: im.tiffsave(p, compression="lzw")),
                       ("photo-12mp.heic", lambda im, p: im.heifsave(p, Q=50, compression="hevc")),
                       ("photo-12mp.jp2", lambda im, p: im.jp2ksave(p, Q=45))):
        if not os.path.exists(os.path.join(INPUTS, name)):
            save(pyvips.Image.new_from_file(jpeg), os.path.join(INPUTS, name))
    cases = [("JPEG", "photo-12mp.jpg"), ("PNG", "photo-12mp.png"), ("WebP", "photo-12mp.webp"), ("GIF, 60 frames", "muybridge.gif"),
             ("TIFF (LZW)", "photo-12mp.tif"), ("HEIC", "photo-12mp.heic"), ("AVIF", "photo-12mp.avif"), ("JPEG XL", "photo-12mp.jxl"),
             ("JPEG 2000", "photo-12mp.jp2"), ("SVG, 3000 shapes", "vector-4000x3000.svg"), ("PDF, 3000 shapes", "vector-letter.pdf")]
    py = [sys.executable, os.path.join(ROOT, "scripts", "bench", "pypeer.py")]
    print("### Decoding out of process: one 256-px thumbnail, in process and in a sandboxed worker\n")
    print("| input | Imago in process, median ms | Imago in a worker, median ms | worker / in process | added ms | libvips, median ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, name in cases:
        if CASE and CASE not in label:
            continue
        path = os.path.join(INPUTS, name)
        if not os.path.exists(path):
            print(f"| {label} | no input | | | | |")
            continue
        best = {}
        for _ in range(ROUNDS):
            for peer, argv in (("here", [timer, "thumb", path, str(ITERATIONS)]), ("worker", [timer, "isolated-thumb", path, str(ITERATIONS)]),
                               ("vips", py + ["pyvips", "thumb", path, str(ITERATIONS)])):
                m = measure(argv)
                if m is not None and (peer not in best or m[0] < best[peer][0]):
                    best[peer] = m
        here, worker, vips = (best.get(k, (None,))[0] for k in ("here", "worker", "vips"))
        show = lambda v: f"{v:.1f}" if v is not None else "failed"
        ratio = f"{worker / here:.2f}x" if here and worker else "-"
        added = f"{worker - here:+.1f}" if here and worker else "-"
        print(f"| {label} | {show(here)} | {show(worker)} | {ratio} | {added} | {show(vips)} |")
    print(f"\nMedian of {ITERATIONS} thumbnails per process (the worker started before the first), the lowest median of "
          f"{ROUNDS} rounds.")
