#!/usr/bin/env python3
"""Writes a DNG with a known scene, for the RAW tests (no camera files can be downloaded).

The scene is linear sRGB: six colour patches, a grey patch, an over-exposed patch (clips in
every channel), a Siemens star and a horizontal gradient. It is taken by a made-up camera whose
XYZ -> camera matrix is ColorMatrix1 (D65), mosaicked (RGGB or BGGR), offset by the black level
and stored as uncompressed 16-bit samples of the given bit depth. IFD0 is a small 8-bit RGB
thumbnail (as Adobe's converter writes); SubIFD 0 the raw CFA image; SubIFD 1 (optional) a
JPEG preview (Pillow). EXIF: make, model, ISO, exposure time, f-number, focal length, lens.

Prints JSON: the patches' rectangles (x, y, w, h, top-left origin) and their linear sRGB
values, the camera neutral and the file's settings.

Usage: make_dng.py OUT.dng [--width W] [--height H] [--bits 12|14] [--cfa RGGB|BGGR]
                   [--no-preview] [--orientation N] [--baseline-exposure EV] [--neutral R,G,B]
                   [--noise FRACTION] [--declared-size W,H]
"""
import argparse
import io
import json
import struct
import sys

import numpy as np

SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                        [0.0193339, 0.1191920, 0.9503041]])
# A plausible camera (XYZ -> camera, D65), in the shape of a Canon body's matrix.
COLOR_MATRIX = np.array([[0.6722, -0.0635, -0.0963], [-0.4287, 1.2460, 0.2028], [-0.0908, 0.2162, 0.5668]])
PATCHES = [  # sRGB-encoded 8-bit values of ColorChecker-like patches
    ("dark skin", (115, 82, 68)), ("light skin", (194, 150, 130)), ("blue sky", (98, 122, 157)),
    ("foliage", (87, 108, 67)), ("red", (175, 54, 60)), ("blue", (56, 61, 150)), ("grey", (160, 160, 160)),
]


def linear(v):
    v = np.asarray(v, dtype=np.float64) / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def encode(v):
    v = np.clip(v, 0, 1)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def scene(width, height):
    """Linear sRGB scene (h, w, 3) and its patches."""
    img = np.zeros((height, width, 3))
    img[:] = 0.18
    patches = []
    size = max(8, min(width, height) // 8)
    for i, (name, rgb) in enumerate(PATCHES):
        x, y = 4 + (i % 4) * (size + 4), 4 + (i // 4) * (size + 4)
        img[y:y + size, x:x + size] = linear(rgb)
        patches.append({"name": name, "x": x, "y": y, "w": size, "h": size, "linear": list(linear(rgb))})
    # Over-exposed: 3x the white point, clipped in every channel of the sensor.
    x, y = 4 + 3 * (size + 4), 4 + (size + 4)
    img[y:y + size, x:x + size] = 3.0
    patches.append({"name": "clipped", "x": x, "y": y, "w": size, "h": size, "linear": [3.0, 3.0, 3.0]})
    # Siemens star (36 spokes) on the right half.
    r = min(width // 4, height // 3)
    cx, cy = width - r - 4, r + 4
    yy, xx = np.mgrid[0:height, 0:width]
    angle = np.arctan2(yy - cy, xx - cx)
    inside = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
    img[inside] = np.where((np.floor(angle / (2 * np.pi / 36)) % 2 == 0)[inside], 0.8, 0.02)[:, None]
    # Gradient along the bottom rows.
    g0 = height - height // 6
    img[g0:, :] = (np.arange(width) / (width - 1) * 0.9 + 0.005)[None, :, None]
    return img, patches, {"cx": cx, "cy": cy, "r": r}


class TIFF:
    """A little-endian TIFF built from IFDs of (tag, type, values) with blobs placed after."""
    SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 10: 8, 13: 4}

    def __init__(self):
        self.out = bytearray(b"II*\0\0\0\0\0")

    def blob(self, data):
        if len(self.out) % 2:
            self.out += b"\0"
        offset = len(self.out)
        self.out += data
        return offset

    @staticmethod
    def pack(kind, values):
        if kind == 2:
            data = values.encode() + b"\0"
            return data, len(data)
        if kind in (1, 7):
            data = bytes(values)
            return data, len(data)
        fmt = {3: "H", 4: "I", 13: "I"}.get(kind)
        if fmt:
            return struct.pack("<%d%s" % (len(values), fmt), *values), len(values)
        parts = b""
        for v in values:  # rationals from floats
            den = 1000000
            num = int(round(v * den))
            parts += struct.pack("<ii" if kind == 10 else "<II", num, den)
        return parts, len(values)

    def ifd(self, entries):
        """Writes the IFD (its out-of-line values first); returns its offset."""
        packed = []
        for tag, kind, values in sorted(entries, key=lambda e: e[0]):
            data, count = self.pack(kind, values)
            if len(data) > 4:
                packed.append((tag, kind, count, self.blob(data), True))
            else:
                packed.append((tag, kind, count, data.ljust(4, b"\0"), False))
        if len(self.out) % 2:
            self.out += b"\0"
        offset = len(self.out)
        self.out += struct.pack("<H", len(packed))
        for tag, kind, count, value, outside in packed:
            self.out += struct.pack("<HHI", tag, kind, count)
            self.out += struct.pack("<I", value) if outside else value
        self.out += struct.pack("<I", 0)
        return offset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--width", type=int, default=384)
    ap.add_argument("--height", type=int, default=256)
    ap.add_argument("--bits", type=int, default=14, choices=[12, 14])
    ap.add_argument("--cfa", default="RGGB", choices=["RGGB", "BGGR"])
    ap.add_argument("--no-preview", action="store_true")
    ap.add_argument("--orientation", type=int, default=1)
    ap.add_argument("--baseline-exposure", type=float, default=0.0)
    ap.add_argument("--neutral", default=None, help="AsShotNeutral override (camera R,G,B)")
    ap.add_argument("--declared-size", default=None, help="W,H written in the raw IFD instead of the real size (absurd files)")
    ap.add_argument("--noise", type=float, default=0.0, help="Gaussian noise, fraction of the range (seeded)")
    a = ap.parse_args()
    w, h = a.width & ~1, a.height & ~1

    img, patches, star = scene(w, h)
    camera = np.einsum("ij,hwj->hwi", COLOR_MATRIX @ SRGB_TO_XYZ, img)
    neutral = COLOR_MATRIX @ SRGB_TO_XYZ @ np.ones(3)
    black, white = (256, 4095) if a.bits == 12 else (1024, 16383)
    # Scene white (1.0) reaches 85% of the range in the most sensitive channel.
    gain = 0.85 * (white - black) / neutral.max()
    values = camera * gain
    if a.noise > 0:
        rng = np.random.default_rng(1234)
        values = values + rng.normal(0, a.noise * (white - black), values.shape)
    cfa = [0, 1, 1, 2] if a.cfa == "RGGB" else [2, 1, 1, 0]
    mosaic = np.empty((h, w))
    for i, c in enumerate(cfa):
        dy, dx = divmod(i, 2)
        mosaic[dy::2, dx::2] = values[dy::2, dx::2, c]
    raw = np.clip(np.round(mosaic) + black, 0, white).astype("<u2")
    as_shot = [float(v) for v in a.neutral.split(",")] if a.neutral else list(neutral / neutral[1])

    t = TIFF()
    raw_offset = t.blob(raw.tobytes())
    thumb = (encode(img[::4, ::4]) * 255 + 0.5).astype(np.uint8)
    thumb_offset = t.blob(thumb.tobytes())
    sub_ifds = []
    dw, dh = [int(v) for v in a.declared_size.split(",")] if a.declared_size else (w, h)
    raw_ifd = t.ifd([
        (254, 4, [0]), (256, 4, [dw]), (257, 4, [dh]), (258, 3, [16]), (259, 3, [1]), (262, 3, [32803]),
        (273, 4, [raw_offset]), (277, 3, [1]), (278, 4, [h]), (279, 4, [raw.nbytes]), (284, 3, [1]),
        (33421, 3, [2, 2]), (33422, 1, cfa), (50710, 1, [0, 1, 2]), (50711, 3, [1]),
        (50714, 4, [black]), (50717, 4, [white]),
    ])
    sub_ifds.append(raw_ifd)
    if not a.no_preview:
        from PIL import Image
        preview = Image.fromarray((encode(img[::2, ::2]) * 255 + 0.5).astype(np.uint8), "RGB")
        buf = io.BytesIO()
        preview.save(buf, "JPEG", quality=90)
        jpeg = buf.getvalue()
        jpeg_offset = t.blob(jpeg)
        sub_ifds.append(t.ifd([
            (254, 4, [1]), (256, 4, [preview.width]), (257, 4, [preview.height]), (258, 3, [8, 8, 8]), (259, 3, [7]),
            (262, 3, [6]), (273, 4, [jpeg_offset]), (277, 3, [3]), (278, 4, [preview.height]), (279, 4, [len(jpeg)]),
            (284, 3, [1]),
        ]))
    exif = t.ifd([
        (33434, 5, [1 / 125]), (33437, 5, [5.6]), (34855, 3, [400]), (36867, 2, "2026:12:05 10:30:00"),
        (37386, 5, [35.0]), (42036, 2, "Cyanotype 35mm F1.4 Test"),
    ])
    ifd0 = t.ifd([
        (254, 4, [1]), (256, 4, [thumb.shape[1]]), (257, 4, [thumb.shape[0]]), (258, 3, [8, 8, 8]), (259, 3, [1]),
        (262, 3, [2]), (271, 2, "Cyanotype"), (272, 2, "Test Camera"), (273, 4, [thumb_offset]), (274, 3, [a.orientation]),
        (277, 3, [3]), (278, 4, [thumb.shape[0]]), (279, 4, [thumb.nbytes]), (284, 3, [1]), (305, 2, "make_dng.py"),
        (330, 4, sub_ifds), (34665, 4, [exif]),
        (50706, 1, [1, 4, 0, 0]), (50707, 1, [1, 1, 0, 0]), (50708, 2, "Cyanotype Test Camera"),
        (50721, 10, list(COLOR_MATRIX.flatten())), (50728, 5, as_shot), (50730, 10, [a.baseline_exposure]),
        (50778, 3, [21]),
    ])
    t.out[4:8] = struct.pack("<I", ifd0)
    with open(a.out, "wb") as f:
        f.write(t.out)
    json.dump({"width": w, "height": h, "black": black, "white": white, "cfa": a.cfa, "patches": patches,
               "star": star, "neutral": list(neutral), "preview": not a.no_preview}, sys.stdout)


main()
