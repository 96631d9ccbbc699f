#!/usr/bin/env bash
# The test command: installs what is missing, then runs every test suite (Swift Testing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
swift build --build-tests
swift test --skip-build "$@"
