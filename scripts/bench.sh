#!/bin/sh
# Tuned release build of cyanotype-bench, then run it; arguments go to the benchmark
# (e.g. --quick, --markdown, --size 3000x2000, --only blur,crop).
set -e
cd "$(dirname "$0")/.."
command -v djpeg >/dev/null 2>&1 || echo "note: djpeg/cjpeg missing: apt-get install -y libjpeg-turbo-progs" >&2
CYANOTYPE_TUNED=1 swift build -c release --product cyanotype-bench >&2
exec .build/release/cyanotype-bench "$@"
