#!/usr/bin/env bash
# The main job: installs what is missing, builds the tool (release) and runs `cyanotype demo`
# on the sample photo shipped in Samples/. Extra arguments go to `cyanotype demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# AVX2/FMA code generation where the CPU has it (the library itself stays portable).
CYANOTYPE_TUNED=$(scripts/tuned.sh) swift build -c release --product cyanotype
.build/release/cyanotype demo "$@"
