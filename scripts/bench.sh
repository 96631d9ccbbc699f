#!/usr/bin/env bash
# Release build of cyanotype-bench, then run it; arguments go to the benchmark
# (e.g. --quick, --markdown, --size 3000x2000, --only blur,crop). The build is the one a package
# user gets (plain `swift build -c release`); `CYANOTYPE_TUNED=1 scripts/bench.sh` times the
# AVX2/FMA build instead (see scripts/tuned.sh).
set -e
cd "$(dirname "$0")/.."
scripts/setup.sh
# The reference tools the benchmark times in the same run.
for tool in vips:libvips-tools ffmpeg:ffmpeg djpeg:libjpeg-turbo-progs convert:imagemagick; do
    # (`convert` must be ImageMagick's: some machines carry a stand-in of that name.)
    { command -v "${tool%%:*}" >/dev/null 2>&1 && { [ "${tool%%:*}" != convert ] || convert -version 2>/dev/null | grep -q ImageMagick; }; } || { echo "bench: installing ${tool#*:}" >&2; apt-get install -y -qq --no-install-recommends "${tool#*:}" >/dev/null; }
done
# GNU time measures the peak memory of the command-line rows (the thumbnail row beside vipsthumbnail).
[ -x /usr/bin/time ] || { echo "bench: installing time" >&2; apt-get install -y -qq --no-install-recommends time >/dev/null; }
# OpenCV (Python) for the blur rows of #16: filter2D with the same kernel.
python3 -c 'import cv2' 2>/dev/null || { echo "bench: installing python3-opencv" >&2; apt-get install -y -qq --no-install-recommends python3-opencv >/dev/null; }
# The command-line tool too: the LUT rows time `cyanotype lut info` and `apply --lut`.
CYANOTYPE_TUNED=${CYANOTYPE_TUNED:-0} swift build -c release --product cyanotype >&2
CYANOTYPE_TUNED=${CYANOTYPE_TUNED:-0} swift build -c release --product cyanotype-bench >&2
exec .build/release/cyanotype-bench "$@"
