#!/usr/bin/env bash
# Installs the Debian packages Cyanotype builds against, if any are missing (we run as root;
# sudo is used when not). Safe to run repeatedly: it does nothing when all are present.
# `scripts/setup.sh --test` also installs the independent readers the tests use (zbar for
# barcodes, tesseract for text, HarfBuzz's hb-shape, exiftool for EXIF/XMP/ICC in every format,
# libjxl's djxl for JPEG XL, ffmpeg (its ffprobe) for video, pngcheck and ImageMagick for PNG
# files, Python Pillow (with lcms) for colours and profiles, LibRaw's dcraw_emu (libraw-bin) for
# RAW development (and rawpy from PyPI beside it), libvips-tools (libheif's own HEIC decode for
# the #26 photo checks; the bench's reference); zxing-cpp from PyPI when pip is
# there: its tests skip otherwise; headless Chromium, its
# driver and Selenium from PyPI for the Fun House page's browser test, which skips without
# them). `cyanotype serve` builds on libmicrohttpd and OpenSSL's libcrypto. The text filters
# need fonts: DejaVu (the default sans-serif, with Hebrew and Arabic), Liberation (metric
# stand-ins for Helvetica, Arial, Times and Courier) and FreeFont.
set -euo pipefail
packages=(pkg-config libspng-dev libturbojpeg0-dev libjpeg62-turbo-dev libwebp-dev liblcms2-dev libtiff-dev libheif-dev libgif-dev libjxl-dev
          libdeflate-dev zlib1g-dev libharfbuzz-dev libfreetype-dev libfontconfig-dev libfribidi-dev fonts-dejavu-core fonts-liberation2 fonts-freefont-ttf
          libmicrohttpd-dev libssl-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
          libzbar-dev opencv-data libraw-dev)
if [ "${1:-}" = "--test" ]; then packages+=(zbar-tools tesseract-ocr tesseract-ocr-eng libharfbuzz-bin libimage-exiftool-perl libjpeg-turbo-progs libjxl-tools ffmpeg chromium chromium-driver python3-pip pngcheck imagemagick python3-pil python3-numpy libraw-bin libtiff-tools libvips-tools); fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "setup: the Swift toolchain (6.0 or later) is required: https://www.swift.org/install/linux/" >&2
    exit 1
fi

if [ "${1:-}" = "--test" ] && command -v python3 >/dev/null 2>&1 && ! python3 -c "import zxingcpp" 2>/dev/null; then
    python3 -m pip install -q zxing-cpp 2>/dev/null \
        || python3 -m pip install -q --break-system-packages zxing-cpp 2>/dev/null \
        || echo "setup: zxing-cpp is not installable here; the Aztec and full-range QR decoder tests will skip" >&2
fi

if [ "${1:-}" = "--test" ] && command -v python3 >/dev/null 2>&1 && ! python3 -c "import selenium" 2>/dev/null; then
    python3 -m pip install -q selenium 2>/dev/null \
        || python3 -m pip install -q --break-system-packages selenium 2>/dev/null \
        || echo "setup: selenium is not installable here; the Fun House browser test will skip" >&2
fi

# OpenCV's own CascadeClassifier (4.x: 5.x dropped it) checks the face detector; without it the
# test compares with OpenCV 4.14's recorded answer.
if [ "${1:-}" = "--test" ] && command -v python3 >/dev/null 2>&1 && ! python3 -c "import cv2; cv2.CascadeClassifier" 2>/dev/null; then
    python3 -m pip install -q "opencv-python-headless<5" 2>/dev/null \
        || python3 -m pip install -q --break-system-packages "opencv-python-headless<5" 2>/dev/null \
        || echo "setup: opencv-python-headless is not installable here; the face test uses OpenCV's recorded boxes" >&2
fi

# rawpy (LibRaw 0.22 in its wheel) is the RAW tests' second LibRaw reference beside Debian's
# dcraw_emu (0.20); without it that comparison skips with a recorded issue.
if [ "${1:-}" = "--test" ] && command -v python3 >/dev/null 2>&1 && ! python3 -c "import rawpy" 2>/dev/null; then
    python3 -m pip install -q rawpy 2>/dev/null \
        || python3 -m pip install -q --break-system-packages rawpy 2>/dev/null \
        || echo "setup: rawpy is not installable here; the RAW tests' rawpy comparison will skip" >&2
fi
