#!/usr/bin/env bash
# The test command: installs what is missing, then runs every test suite (Swift Testing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
swift build --build-tests
if [ $# -eq 0 ]; then
    # The pixel loops' portable versions (machines without AVX2/FMA), then everything.
    CYANOTYPE_PORTABLE_KERNELS=1 swift test --skip-build --filter 'RowKernelTests|ColorFilterTests|ColorAdjustment2Tests|TilingTests|EngineTests|EncodedIOTests|LUTApplyTests|PlanarBufferTests'
fi
swift test --skip-build "$@"
