# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The Imago authors

"""scripts/bench-server's SVG charts: req/s per stream and connection count, and RSS over time."""
import platform

from bench.serverlib import CORES


def svg_bars(results, path, streams, connections):
    """Grouped bars: req/s per stream and connection count, one bar per server."""
    colours = {"imago": "#2b6cb0", "thumbor": "#c05621", "nginx": "#718096"}
    groups = [(s, c) for s in streams for c in connections if s in results and str(c) in results[s]]
    # Each stream on its own scale (PNG to WebP is far slower than a JPEG thumbnail). nginx's
    # image_filter answers an animated GIF with its first frame alone: not the same work, left out.
    comparable = lambda s, name: not (s == "gif" and name == "nginx")
    tops = {s: max((r["rps"] for c in connections for name, r in results.get(s, {}).get(str(c), {}).items() if comparable(s, name)),
                   default=1) * 1.1 for s in streams}
    w, h, left, bottom = 120 + 110 * len(groups), 360, 60, 60
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
             f'<text x="{left}" y="16" font-size="13">req/s by stream and connections, each stream on its own scale ({platform.machine()}, {CORES} cores)</text>']
    for i, (s, c) in enumerate(groups):
        x0 = left + 10 + i * 110
        for j, name in enumerate(["imago", "thumbor", "nginx"]):
            r = results[s][str(c)].get(name)
            if not r or not comparable(s, name):
                continue
            bh = (h - bottom - 30) * r["rps"] / tops[s]
            parts.append(f'<rect x="{x0 + j * 30}" y="{h - bottom - bh:.1f}" width="26" height="{bh:.1f}" fill="{colours[name]}"/>')
            parts.append(f'<text x="{x0 + j * 30 + 13}" y="{h - bottom - bh - 3:.1f}" text-anchor="middle">{r["rps"]:.0f}</text>')
        parts.append(f'<text x="{x0 + 45}" y="{h - bottom + 15}" text-anchor="middle">{s} c={c}</text>')
    for j, name in enumerate(["imago", "thumbor", "nginx"]):
        parts.append(f'<rect x="{left + j * 90}" y="{h - 25}" width="12" height="12" fill="{colours[name]}"/>'
                     f'<text x="{left + j * 90 + 16}" y="{h - 15}">{name}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts))



def svg_rss(series, path, seconds):
    """RSS over time, one line per server."""
    colours = {"imago": "#2b6cb0", "thumbor": "#c05621"}
    top = max((v for samples in series.values() for _, v in samples), default=1) / 2**20 * 1.15
    w, h, left, bottom = 640, 320, 60, 40
    pw, ph = w - left - 20, h - bottom - 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
             f'<text x="{left}" y="16" font-size="13">RSS of the whole process tree under the jpeg stream, 32 connections</text>',
             f'<line x1="{left}" y1="{h - bottom}" x2="{w - 20}" y2="{h - bottom}" stroke="#000"/>',
             f'<line x1="{left}" y1="{h - bottom}" x2="{left}" y2="{30}" stroke="#000"/>']
    for k in range(0, 5):
        v = top * k / 4
        y = h - bottom - ph * k / 4
        parts.append(f'<text x="{left - 5}" y="{y + 4:.0f}" text-anchor="end">{v:.0f} MB</text>')
    for k in range(0, 7):
        t = seconds * k / 6
        parts.append(f'<text x="{left + pw * k / 6:.0f}" y="{h - bottom + 15}" text-anchor="middle">{t:.0f} s</text>')
    for j, (name, samples) in enumerate(series.items()):
        points = " ".join(f"{left + pw * min(t, seconds) / seconds:.1f},{h - bottom - ph * v / 2**20 / top:.1f}" for t, v in samples)
        parts.append(f'<polyline fill="none" stroke="{colours.get(name, "#000")}" stroke-width="2" points="{points}"/>')
        parts.append(f'<rect x="{left + 20 + j * 100}" y="{h - 14}" width="12" height="3" fill="{colours.get(name, "#000")}"/>'
                     f'<text x="{left + 36 + j * 100}" y="{h - 10}">{name}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts))
