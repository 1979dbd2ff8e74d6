"""Python peers for scripts/bench-peers.

Usage: pypeer.py pillow|pyvips full|scaled FILE ITERATIONS  ->  "median_ms min_ms width height"
Each decodes from bytes in memory and forces the whole image into memory:
Pillow with Image.load() (draft() for the 1/8 JPEG), libvips through pyvips with
write_to_memory() (jpegload shrink=8 / webpload scale for the 1/8 case).
"""
import io
import statistics
import sys
import time


def pillow(mode, data):
    from PIL import Image
    im = Image.open(io.BytesIO(data))
    if mode == "scaled":
        if im.format == "JPEG":
            im.draft("RGB", (im.width // 8, im.height // 8))
        else:
            im = im.reduce(8)
    im.load()
    return im.width, im.height


def pyvips_decode(mode, data):
    import pyvips
    options = {}
    if mode == "scaled":
        options = {"shrink": 8} if data[:2] == b"\xff\xd8" else {"scale": 0.125}
    im = pyvips.Image.new_from_buffer(data, "", access="sequential", **options)
    im.write_to_memory()
    return im.width, im.height


def main():
    peer, mode, path, iterations = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    data = open(path, "rb").read()
    fn = pillow if peer == "pillow" else pyvips_decode
    if peer == "pyvips":
        import pyvips
        pyvips.cache_set_max(0)  # measure decoding, not libvips' operation cache
    times = []
    size = (0, 0)
    for _ in range(iterations):
        start = time.perf_counter()
        size = fn(mode, data)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(f"{statistics.median(times):.3f} {times[0]:.3f} {size[0]} {size[1]}")


if __name__ == "__main__":
    main()
