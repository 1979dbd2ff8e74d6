"""Python peers for scripts/bench-peers.

Usage: pypeer.py pillow|pyvips full|scaled|thumb FILE ITERATIONS  ->  "median_ms min_ms width height"
       pypeer.py thumbfiles OUTDIR JOBS FILE...   (whole-process thumbnails, Pillow)
       pypeer.py convert IN OUT QUALITY   (whole-process transcode, Pillow: open, load, save)
       pypeer.py tosrgb IN OUT QUALITY    (the same, converting the embedded ICC profile to sRGB)
       pypeer.py placeholders FILE        (whole process: BlurHash 4x3 and ThumbHash of a 100-px
                                           Pillow thumbnail, by the reference packages on PyPI)
Each decodes from bytes in memory and forces the whole image into memory:
Pillow with Image.load() (draft() for the 1/8 JPEG), libvips through pyvips with
write_to_memory() (jpegload shrink=8 / webpload scale for the 1/8 case).
"thumb" is a 256-px thumbnail: Pillow draft() + thumbnail() (Lanczos, reducing_gap 2, its
default), libvips thumbnail_buffer() (shrink-on-load, then Lanczos3).
"""
import io
import statistics
import sys
import time


def pillow_anim(mode, data):
    """Animations: every frame composited to RGBA, frame 0 only, or an encode of every frame
    (returns output bytes and frame count)."""
    from PIL import Image, ImageSequence
    im = Image.open(io.BytesIO(data))
    if mode == "anim-first":
        im.convert("RGBA")
        return im.width, 1
    frames = [f.convert("RGBA") for f in ImageSequence.Iterator(im)]
    if mode in ("anim-all", "anim-lazy"):
        return im.width, len(frames)
    out = io.BytesIO()
    fmt = "GIF" if mode == "enc-gif" else "WEBP"
    durations = [f.info.get("duration", 100) for f in ImageSequence.Iterator(Image.open(io.BytesIO(data)))]
    frames[0].save(out, format=fmt, save_all=True, append_images=frames[1:], duration=durations, loop=0, quality=80)
    return out.tell(), len(frames)


def pillow(mode, data):
    from PIL import Image
    if mode.startswith("anim") or mode.startswith("enc"):
        return pillow_anim(mode, data)
    if mode == "thumb":
        im = pillow_thumb(data)
        return im.width, im.height
    im = Image.open(io.BytesIO(data))
    if mode == "scaled":
        if im.format == "JPEG":
            im.draft("RGB", (im.width // 8, im.height // 8))
        else:
            im = im.reduce(8)
    im.load()
    return im.width, im.height


def pillow_thumb(data):
    from PIL import Image, ImageOps
    im = Image.open(io.BytesIO(data))
    im.draft("RGB", (256, 256))   # JPEG DCT scaling; a no-op for other formats
    im.thumbnail((256, 256), Image.LANCZOS)
    im = ImageOps.exif_transpose(im)
    return im


def pyvips_decode(mode, data):
    import pyvips
    if mode.startswith("anim") or mode.startswith("enc"):
        n = 1 if mode == "anim-first" else -1
        im = pyvips.Image.new_from_buffer(data, "", n=n, access="sequential")
        pages = im.get("n-pages") if n == -1 and im.get_typeof("n-pages") else 1
        if mode.startswith("enc"):
            out = im.gifsave_buffer() if mode == "enc-gif" else im.webpsave_buffer(Q=80)
            return len(out), pages
        im.write_to_memory()
        return im.width, pages
    if mode == "thumb":
        im = pyvips.Image.thumbnail_buffer(data, 256)
        im.write_to_memory()
        return im.width, im.height
    options = {}
    if mode == "scaled":
        options = {"shrink": 8} if data[:2] == b"\xff\xd8" else {"scale": 0.125}
    im = pyvips.Image.new_from_buffer(data, "", access="sequential", **options)
    im.write_to_memory()
    return im.width, im.height


def thumb_file(job):
    """Whole-file Pillow thumbnail: read, 256-px thumbnail, write in the input's format
    (JPEG and WebP at quality 85) or JPEG when forced."""
    import os
    path, out_dir, force_jpeg = job
    with open(path, "rb") as f:
        im = pillow_thumb(f.read())
    stem, ext = os.path.splitext(os.path.basename(path))
    ext = ".jpg" if force_jpeg else ext.lower()
    if ext in (".jpg", ".jpeg") and im.mode not in ("RGB", "L"):
        im = im.convert("RGB")
    im.save(os.path.join(out_dir, stem + ext), quality=85)


def thumbfiles(out_dir, jobs, files, force_jpeg):
    work = [(f, out_dir, force_jpeg) for f in files]
    if jobs > 1:
        from multiprocessing import Pool
        with Pool(jobs) as pool:
            pool.map(thumb_file, work)
    else:
        for w in work:
            thumb_file(w)


def convert(src, dst, quality):
    """A plain transcode as a Pillow user writes it: RGB for JPEG, the image's mode otherwise."""
    from PIL import Image
    im = Image.open(src)
    if dst.lower().endswith((".jpg", ".jpeg")) and im.mode != "RGB":
        im = im.convert("RGB")
    im.save(dst, quality=quality)


def to_srgb(src, dst, quality):
    """A transcode that converts the embedded ICC profile to sRGB, as ImageCms users write it."""
    from PIL import Image, ImageCms
    im = Image.open(src)
    icc = im.info.get("icc_profile")
    if icc:
        im = ImageCms.profileToProfile(im, ImageCms.ImageCmsProfile(io.BytesIO(icc)),
                                       ImageCms.createProfile("sRGB"), outputMode="RGB")
    im.save(dst, quality=quality)


def placeholders(path):
    """What a Python service does for a placeholder: a draft decode, a 100-px thumbnail, then the
    reference encoders (pure Python) on its pixels."""
    import blurhash
    import thumbhash
    from PIL import Image
    im = Image.open(path)
    im.draft("RGB", (200, 200))
    im = im.convert("RGB")
    im.thumbnail((100, 100))
    w, h = im.size
    px = list(im.getdata())
    rows = [[list(p) for p in px[y * w:(y + 1) * w]] for y in range(h)]
    print(blurhash.encode(rows, 4, 3))
    rgba = [c for p in im.convert("RGBA").getdata() for c in p]
    print(bytes(thumbhash.rgba_to_thumb_hash(w, h, rgba)).hex())


def faces(path):
    """Faces as a Python service finds them (thumbor's way): a draft decode near 800 px, gray,
    equalised, OpenCV's frontal-face cascade with Imago's parameters, on one thread as Imago's
    search runs (one job on one worker)."""
    import cv2
    import numpy
    from PIL import Image
    im = Image.open(path)
    im.draft("L", (800, 800))
    im = im.convert("L")
    im.thumbnail((800, 800))
    cv2.setNumThreads(1)
    gray = cv2.equalizeHist(numpy.asarray(im))
    cascade = cv2.CascadeClassifier("/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml")
    found = cascade.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=4, minSize=(20, 20))
    print(len(found))


def main():
    if sys.argv[1] == "faces":
        faces(sys.argv[2])
        return
    if sys.argv[1] == "placeholders":
        placeholders(sys.argv[2])
        return
    if sys.argv[1] in ("convert", "tosrgb"):
        (convert if sys.argv[1] == "convert" else to_srgb)(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    if sys.argv[1] == "thumbfiles":
        force = sys.argv[2] == "--jpeg"
        args = sys.argv[3:] if force else sys.argv[2:]
        thumbfiles(args[0], int(args[1]), args[2:], force)
        return
    peer, mode, path, iterations = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    data = open(path, "rb").read()
    fn = pillow if peer == "pillow" else pyvips_decode
    if peer == "pyvips":
        import pyvips
        pyvips.cache_set_max(0)  # measure decoding, not libvips' operation cache
    else:
        from PIL import Image
        Image.preinit()  # import the format plugins now, so the first run times decoding only
        Image.init()
    times = []
    size = (0, 0)
    for _ in range(iterations):
        start = time.perf_counter()
        size = fn(mode, data)
        times.append((time.perf_counter() - start) * 1000)
    first = times[0]
    times.sort()
    # median, best, width, height, first run (cold allocator: nothing freed yet to reuse)
    print(f"{statistics.median(times):.3f} {times[0]:.3f} {size[0]} {size[1]} {first:.3f}")


if __name__ == "__main__":
    main()
