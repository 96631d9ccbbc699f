#!/usr/bin/env bash
# Prints "1" when this machine can run the tuned build (x86-64 with AVX2, FMA and F16C:
# -march=x86-64-v3), so scripts opt in with CYANOTYPE_TUNED=$(scripts/tuned.sh).
if [ "$(uname -m)" = "x86_64" ] && grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && grep -qw f16c /proc/cpuinfo; then
    echo 1
else
    echo 0
fi
