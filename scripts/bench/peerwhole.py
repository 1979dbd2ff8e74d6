# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The Imago authors

"""scripts/bench-peers' whole-process parts: thumbnails, transcodes, and the analyses beside a plain resize."""
import os
import shutil
import sys

from bench.peerlib import CASE, CORPUS, FOLDER, INPUTS, OUT, ROOT, TIE, best_runs, run, with_before


def thumbnails(imago_cli):
    py = [sys.executable, os.path.join(ROOT, "scripts", "bench", "pypeer.py"), "thumbfiles"]
    out = os.path.join(OUT, "thumbs")
    folder_files = sorted(os.path.join(FOLDER, f) for f in os.listdir(FOLDER))
    half = len(folder_files) // 2

    def vips_out(path, force_jpeg=False):
        ext = ".jpg" if force_jpeg else os.path.splitext(path)[1].lower()
        return os.path.join(out, "%s" + ext + ("[Q=85]" if ext in (".jpg", ".webp") else ""))

    cases = []
    for label, name in (("JPEG 4032x3024", "photo-12mp.jpg"), ("JPEG 5250x3450", "photo-18mp.jpg"),
                        ("JPEG 6000x4000", "photo-24mp.jpg"), ("PNG 6000x4000", "photo-24mp.png"),
                        ("PNG 3000x2000 RGBA", "photo-6mp-rgba.png"), ("WebP 4032x3024", "photo-12mp.webp"),
                        ("WebP bryce 11158x2156", "bryce.webp")):
        f = os.path.join(INPUTS, name)
        cases.append((label, [
            ("Imago", [imago_cli, "thumbnail", f, "--size", "256", "--output", out, "--jobs", "1"]),
            ("vipsthumbnail", ["vipsthumbnail", f, "-s", "256", "-o", vips_out(f)]),
            ("Pillow", py + [out, "1", f]),
        ]))
    jpeg_out = os.path.join(out, "%s.jpg[Q=85]")
    cases.append((f"folder of {len(folder_files)} (JPEG/PNG/WebP 4770x3150), 2 jobs", [
        ("Imago", [imago_cli, "thumbnail", FOLDER, "--size", "256", "--output", out, "--jobs", "2", "--format", "jpeg"]),
        # vipsthumbnail has no jobs option: two processes, half the files each.
        ("vipsthumbnail", [["vipsthumbnail"] + folder_files[:half] + ["-s", "256", "-o", jpeg_out],
                           ["vipsthumbnail"] + folder_files[half:] + ["-s", "256", "-o", jpeg_out]]),
        ("Pillow", py + ["--jpeg", out, "2"] + folder_files),
    ]))

    if CASE:
        cases = [c for c in cases if CASE in c[0]]
    print("\n### 256-px thumbnails, whole process (read, thumbnail, encode, write)\n")
    print("| input | peer | wall ms | peak RSS MB | time vs Imago | RSS vs Imago |")
    print("|---|---|---:|---:|---:|---:|")
    behind = []
    for label, peers in cases:
        peers = with_before(peers)
        expected = len(folder_files) if label.startswith("folder") else 1

        def check(peer, m, label=label, expected=expected):
            if m[2] != expected:
                sys.exit(f"bench-peers: {peer} wrote {m[2]} files for {label}, expected {expected}")

        best = best_runs(peers, out, check)
        base = best.get("Imago")
        for peer, _ in peers:
            m = best.get(peer)
            if m is None:
                print(f"| {label} | {peer} | failed | | | |")
                continue
            wall, rss, _ = m
            t = wall / base[0] if base else float("nan")
            r = rss / base[1] if base else float("nan")
            if not peer.startswith("Imago") and base and wall * TIE < base[0]:
                behind.append(f"{label}: time vs {peer} ({base[0]:.0f} ms against {wall:.0f} ms)")
            if not peer.startswith("Imago") and base and rss * TIE < base[1]:
                behind.append(f"{label}: peak RSS vs {peer} ({base[1]:.1f} MB against {rss:.1f} MB)")
            print(f"| {label} | {peer} | {wall:.0f} | {rss:.1f} | {t:.2f}x | {r:.2f}x |")
    print("\nPeak RSS of the multi-process peers (two vipsthumbnail processes, a Pool of 2) is their largest single process.")
    print("Imago behind a peer in time or memory by more than 3%: " + (", ".join(behind) if behind else "none"))


def transcodes(imago_cli, formats_only=False):
    """Whole-process conversions and the giant thumbnail, Imago beside libvips and Pillow
    (with formats_only, only the newer formats' cases: JPEG XL, AVIF, SVG and PDF)."""
    py = [sys.executable, os.path.join(ROOT, "scripts", "bench", "pypeer.py")]
    out = os.path.join(OUT, "transcodes")
    cases = []
    for label, name, ext, q in (("PNG -> JPEG, 4032x3024", "photo-12mp.png", "jpg", 85),
                                ("progressive JPEG -> JPEG, 5250x3450", "photo-18mp-progressive.jpg", "jpg", 85),
                                ("WebP -> JPEG, 4032x3024", "photo-12mp.webp", "jpg", 85),
                                ("JPEG -> WebP q80, 4032x3024", "photo-12mp.jpg", "webp", 80),
                                ("PNG RGBA -> PNG, 3000x2000", "photo-6mp-rgba.png", "png", 85)):
        f = os.path.join(INPUTS, name)
        target = os.path.join(out, "out." + ext)
        cases.append((label, [
            ("Imago", [imago_cli, "convert", f, target, "--quality", str(q)]),
            # libvips writes PNG rows unfiltered by default (twice the size here); filter=all asks
            # for libpng's adaptive filtering, which Imago and Pillow use, so the outputs match.
            ("libvips", ["vips", "copy", f, target + (f"[Q={q}]" if ext != "png" else "[compression=6,filter=all]")]),
            ("Pillow", py + ["convert", f, target, str(q)]),
        ]))
    # Colour management: a Display P3 photo to an sRGB JPEG (Imago converts to sRGB by default;
    # libvips and Pillow are asked to, through lcms2 like Imago).
    for kind in ("JPEG", "PNG"):
        p3 = os.path.join(INPUTS, "photo-12mp-p3." + ("jpg" if kind == "JPEG" else "png"))
        cases.append((f"Display P3 {kind} -> sRGB JPEG, 4032x3024", [
            ("Imago", [imago_cli, "convert", p3, os.path.join(out, "out.jpg"), "--quality", "85"]),
            ("libvips", ["vips", "icc_transform", p3, os.path.join(out, "out.jpg[Q=85]"), "srgb"]),
            ("Pillow", py + ["tosrgb", p3, os.path.join(out, "out.jpg"), "85"]),
        ]))
    # JPEG XL (Pillow reads none without a plugin, so libvips, which links libjxl, is the peer).
    jxl12 = os.path.join(INPUTS, "photo-12mp.jxl")
    png12 = os.path.join(INPUTS, "photo-12mp.png")
    if os.path.exists(jxl12):
        cases.append(("JPEG XL -> JPEG, 4032x3024", [
            ("Imago", [imago_cli, "convert", jxl12, os.path.join(out, "out.jpg"), "--quality", "85"]),
            ("libvips", ["vips", "copy", jxl12, os.path.join(out, "out.jpg[Q=85]")]),
        ]))
        cases.append(("256-px thumbnail, JPEG XL 4032x3024", [
            ("Imago", [imago_cli, "thumbnail", jxl12, "--size", "256", "--output", out, "--jobs", "1", "--format", "jpeg"]),
            ("libvips", ["vipsthumbnail", jxl12, "-s", "256", "-o", os.path.join(out, "%s.jpg[Q=85]")]),
        ]))
        cases.append(("PNG -> JPEG XL q90, 4032x3024", [
            ("Imago", [imago_cli, "convert", png12, os.path.join(out, "out.jxl"), "--quality", "90"]),
            ("libvips", ["vips", "copy", png12, os.path.join(out, "out.jxl[Q=90]")]),
        ]))
    avif12 = os.path.join(INPUTS, "photo-12mp.avif")
    if os.path.exists(avif12):
        cases.append(("AVIF -> JPEG, 4032x3024", [
            ("Imago", [imago_cli, "convert", avif12, os.path.join(out, "out.jpg"), "--quality", "85"]),
            ("libvips", ["vips", "copy", avif12, os.path.join(out, "out.jpg[Q=85]")]),
            ("Pillow", py + ["convert", avif12, os.path.join(out, "out.jpg"), "85"]),
        ]))
        cases.append(("256-px thumbnail, AVIF 4032x3024", [
            ("Imago", [imago_cli, "thumbnail", avif12, "--size", "256", "--output", out, "--jobs", "1", "--format", "jpeg"]),
            ("libvips", ["vipsthumbnail", avif12, "-s", "256", "-o", os.path.join(out, "%s.jpg[Q=85]")]),
            ("Pillow", py + ["thumbfiles", "--jpeg", out, "1", avif12]),
        ]))
    # AVIF encoding: speed against size. Imago's default (libavif speed 9) and speed 6 (aom's and
    # Pillow's default, --effort 5) beside libvips (libheif) and Pillow at their defaults.
    cases.append(("PNG -> AVIF q60, 4032x3024", [
        ("Imago", [imago_cli, "convert", png12, os.path.join(out, "out.avif"), "--quality", "60"]),
        ("Imago speed 6", [imago_cli, "convert", png12, os.path.join(out, "out.avif"), "--quality", "60", "--effort", "5"]),
        ("libvips", ["vips", "copy", png12, os.path.join(out, "out.avif[Q=60]")]),
        ("Pillow", py + ["convert", png12, os.path.join(out, "out.avif"), "60"]),
    ]))
    # SVG and PDF: librsvg and poppler in both Imago and libvips (Pillow reads neither), drawn at
    # full size and as a 256-px thumbnail (vector, at that size, in both); PDF beside pdftoppm too,
    # whose Splash renderer Imago draws with (libvips draws with poppler-glib's cairo).
    svg = os.path.join(INPUTS, "vector-4000x3000.svg")
    pdf = os.path.join(INPUTS, "vector-letter.pdf")
    cases.append(("SVG -> PNG, 4000x3000", [
        ("Imago", [imago_cli, "convert", svg, os.path.join(out, "out.png")]),
        ("libvips", ["vips", "copy", svg, os.path.join(out, "out.png[compression=6,filter=all]")]),
    ]))
    cases.append(("256-px thumbnail, SVG 4000x3000", [
        ("Imago", [imago_cli, "thumbnail", svg, "--size", "256", "--output", out, "--jobs", "1", "--format", "png"]),
        ("libvips", ["vipsthumbnail", svg, "-s", "256", "-o", os.path.join(out, "%s.png")]),
    ]))
    cases.append(("PDF page -> JPEG at 300 dpi, 2550x3300", [
        ("Imago", [imago_cli, "convert", pdf, os.path.join(out, "out.jpg"), "--dpi", "300", "--quality", "85"]),
        ("libvips", ["vips", "copy", pdf + "[dpi=300]", os.path.join(out, "out.jpg[Q=85]")]),
        ("pdftoppm", ["pdftoppm", "-r", "300", "-jpeg", "-jpegopt", "quality=85", "-singlefile", pdf, os.path.join(out, "out")]),
    ]))
    cases.append(("256-px thumbnail, PDF page", [
        ("Imago", [imago_cli, "thumbnail", pdf, "--size", "256", "--output", out, "--jobs", "1", "--format", "jpeg"]),
        ("libvips", ["vipsthumbnail", pdf, "-s", "256", "-o", os.path.join(out, "%s.jpg[Q=85]")]),
        ("pdftoppm", ["pdftoppm", "-scale-to", "256", "-jpeg", "-jpegopt", "quality=85", "-singlefile", pdf, os.path.join(out, "out")]),
    ]))
    # A real page: pdf.js's Embedded_font.pdf (letter, landscape; embedded TrueType text), at
    # pdftoppm's default 150 dpi.
    text_pdf = os.path.join(CORPUS, "pdf", "Embedded_font.pdf")
    cases.append(("PDF text page -> JPEG at 150 dpi, 1650x1275", [
        ("Imago", [imago_cli, "convert", text_pdf, os.path.join(out, "out.jpg"), "--dpi", "150", "--quality", "85"]),
        ("libvips", ["vips", "copy", text_pdf + "[dpi=150]", os.path.join(out, "out.jpg[Q=85]")]),
        ("pdftoppm", ["pdftoppm", "-r", "150", "-jpeg", "-jpegopt", "quality=85", "-singlefile", text_pdf, os.path.join(out, "out")]),
        # Imago's JPEGs have optimised Huffman tables (a text page's file 0.41x the size): pdftoppm
        # writing the same bytes.
        ("pdftoppm, optimised Huffman", ["pdftoppm", "-r", "150", "-jpeg", "-jpegopt", "quality=85,optimize=y", "-singlefile",
                                         text_pdf, os.path.join(out, "out")]),
    ]))
    # What pdftoppm is mostly run for: every page of a document, here 27 real pages (the corpus's
    # pdf.js files joined). Imago converts pages side by side, one per core, in sandboxed workers;
    # pdftoppm draws them one after another. (libvips has no one-command equivalent.)
    document = os.path.join(INPUTS, "corpus-27-pages.pdf")
    cases.append(("PDF document, every page (27 real pages) -> JPEG at 150 dpi", [
        ("Imago", [imago_cli, "convert", "--all-frames", "--dpi", "150", "--quality", "85", document, os.path.join(out, "page.jpg")]),
        ("pdftoppm", ["pdftoppm", "-r", "150", "-jpeg", "-jpegopt", "quality=85", document, os.path.join(out, "page")]),
        ("pdftoppm, optimised Huffman", ["pdftoppm", "-r", "150", "-jpeg", "-jpegopt", "quality=85,optimize=y", document,
                                         os.path.join(out, "page")]),
    ]))
    if formats_only:
        cases = [c for c in cases if "JPEG XL" in c[0] or "AVIF" in c[0] or "SVG" in c[0] or "PDF" in c[0]]
    giant = os.path.join(INPUTS, "photo-280mp.jpg")
    if not formats_only:
        cases.append(("256-px thumbnail, 20000x14000 JPEG", [
            ("Imago", [imago_cli, "thumbnail", giant, "--size", "256", "--output", out, "--jobs", "1"]),
            ("libvips", ["vipsthumbnail", giant, "-s", "256", "-o", os.path.join(out, "%s.jpg[Q=85]")]),
            ("Pillow", py + ["thumbfiles", out, "1", giant]),
        ]))
    if CASE:
        cases = [c for c in cases if CASE in c[0]]
    print("\n### Transcodes, whole process (read, decode, encode, write)\n")
    print("| case | peer | wall ms | peak RSS MB | output KB | time vs best peer | RSS vs best peer |")
    print("|---|---|---:|---:|---:|---:|---:|")
    behind = []
    sizes = {}
    for label, peers in cases:
        peers = with_before(peers)

        def written(peer, _m, label=label):
            sizes[(label, peer)] = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)

        best = best_runs(peers, out, written)
        others = [best[p] for p, _ in peers if not p.startswith("Imago") and best.get(p)]
        fastest = min((m[0] for m in others), default=float("nan"))
        leanest = min((m[1] for m in others), default=float("nan"))
        for peer, _ in peers:
            m = best.get(peer)
            if m is None:
                print(f"| {label} | {peer} | failed | | | | |")
                continue
            print(f"| {label} | {peer} | {m[0]:.0f} | {m[1]:.1f} | {sizes.get((label, peer), 0) / 1024:.0f} | "
                  f"{m[0] / fastest:.2f}x | {m[1] / leanest:.2f}x |")
        imago = best.get("Imago")
        before = best.get("Imago before")
        if imago and before and imago[0] > before[0] * TIE:
            behind.append(f"{label}: time {imago[0] / before[0]:.2f}x Imago before")
        if imago and imago[0] > fastest * TIE:
            behind.append(f"{label}: time {imago[0] / fastest:.2f}x the best peer")
        if imago and imago[1] > leanest * TIE:
            behind.append(f"{label}: peak RSS {imago[1] / leanest:.2f}x the best peer")
    print("\nRatios are against the better of libvips and Pillow in each column (the issue's target: at most 1.00x).")
    print("Imago behind the best peer by more than 3%: " + ("; ".join(behind) if behind else "none"))



def analysis(imago_cli):
    """The cost of the analyses beside the plain resize, whole processes, best of the rounds."""
    py = [sys.executable, os.path.join(ROOT, "scripts", "bench", "pypeer.py")]
    out = os.path.join(OUT, "analysis")
    cases = []
    for label, name in (("JPEG 4032x3024", "photo-12mp.jpg"), ("PNG 6000x4000", "photo-24mp.png")):
        f = os.path.join(INPUTS, name)
        cases.append((label, [
            ("Imago 256-px thumbnail (plain resize)", [imago_cli, "thumbnail", f, "--size", "256", "--output", out, "--jobs", "1"]),
            ("Imago BlurHash + ThumbHash + colours", [imago_cli, "info", f, "--placeholders"]),
            ("Pillow + blurhash, thumbhash (PyPI)", py + ["placeholders", f]),
        ]))
    # A video frame: Imago's (FFmpeg through its loader, then the resize) beside ffmpeg's own.
    clip = os.path.join(INPUTS, "clip-1080p.mp4")
    if not os.path.exists(clip) and shutil.which("ffmpeg"):
        run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=10", "-g", "60",
             "-c:v", "libx264", "-pix_fmt", "yuv420p", clip])
    if os.path.exists(clip):
        cases.append(("H.264 1920x1080 10 s, frame at 5 s", [
            ("Imago 256-px thumbnail of a 12-MP JPEG (for scale)", [imago_cli, "thumbnail", os.path.join(INPUTS, "photo-12mp.jpg"), "--size", "256",
                                                       "--output", out, "--jobs", "1"]),
            ("Imago video frame + 256-px thumbnail", [imago_cli, "thumbnail", clip, "--size", "256", "--output", out, "--jobs", "1",
                                                      "--video-second", "5"]),
            ("ffmpeg -ss 5, scale to 256 (the C floor)", ["ffmpeg", "-loglevel", "error", "-y", "-ss", "5", "-i", clip,
                                                          "-frames:v", "1", "-vf", "scale=256:-2", os.path.join(out, "frame.jpg")]),
        ]))
    # Faces: scikit-image's astronaut (python3-skimage), 3x, off-centre in a 12-MP photo.
    portrait = os.path.join(INPUTS, "portrait-12mp.jpg")
    astronaut = "/usr/lib/python3/dist-packages/skimage/data/astronaut.png"
    if not os.path.exists(portrait) and os.path.exists(astronaut):
        import pyvips
        bg = pyvips.Image.new_from_file(os.path.join(CORPUS, "exif-orientation", "Landscape_1.jpg"))
        bg = bg.resize(4032 / bg.width, vscale=3024 / bg.height, kernel="lanczos3")
        face = pyvips.Image.new_from_file(astronaut).resize(3, kernel="lanczos3")
        bg.insert(face[:3], 2300, 900).jpegsave(portrait, Q=90)
    if os.path.exists(portrait):
        cases.append(("JPEG 4032x3024, a portrait off-centre", [
            ("Imago 256x256 cover, centre cut", [imago_cli, "convert", portrait, os.path.join(out, "cover.jpg"), "--resize", "256x256",
                                                 "--mode", "cover"]),
            ("Imago 256x256 cover, cut around the face", [imago_cli, "convert", portrait, os.path.join(out, "smart.jpg"), "--resize",
                                                           "256x256", "--mode", "smart"]),
            ("Imago info --faces (800-px shrink-on-load)", [imago_cli, "info", portrait, "--faces"]),
            ("Pillow draft + OpenCV cv2, the same cascade", py + ["faces", portrait]),
        ]))
    if CASE:
        cases = [c for c in cases if CASE in c[0]]
    print("\n### Analysis beside the plain resize, whole process\n")
    print("| input | work | wall ms | peak RSS MB | time vs the plain resize |")
    print("|---|---|---:|---:|---:|")
    for label, peers in cases:
        best = best_runs(peers, out)
        base = best.get(peers[0][0])
        for peer, _ in peers:
            m = best.get(peer)
            if m is None:
                print(f"| {label} | {peer} | failed | | |")
                continue
            ratio = m[0] / base[0] if base else float("nan")
            print(f"| {label} | {peer} | {m[0]:.0f} | {m[1]:.1f} | {ratio:.2f}x |")
