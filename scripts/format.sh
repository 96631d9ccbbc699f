#!/usr/bin/env bash
# Formats the Swift code with the toolchain's swift-format and the repository's .swift-format.
#
#   scripts/format.sh            # rewrite Sources, Tests, Fuzz and Package.swift in place
#   scripts/format.sh --check    # change nothing: list what does not follow the style, exit 1 if any
#   scripts/format.sh FILE...    # only these files (either mode)
#
# The configuration follows the code as it was written: 4-space indentation, lines up to 180
# columns (99.5% of lines were within 162), the author's line breaks kept
# (respectsExistingLineBreaks), `case` labels level with their `switch`, `#if` blocks not
# indented, `0..<n` without spaces, trailing commas in multi-line collections. Rules that
# would rewrite deliberate idioms are off: semicolons joining short statements on one line,
# several cases or variables in one declaration (`case sRGB, linear`, `let r, g, b: Float`),
# Core Image's spellings (`kCIInputImageKey`, `CIFormat.RGBA8`, `_1977`), numeric literals
# grouped as their formulas read, `case let .x(a, b)`, imports in dependency order, and
# initializers written out for documentation. What swift-format still changes is its own
# continuation style: arguments wrapped at a fixed indent instead of aligned under the
# opening parenthesis. Generated and verbatim files opt out with `// swift-format-ignore-file`.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=format
if [ "${1:-}" = "--check" ]; then mode=check; shift; fi
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(Sources Tests Fuzz Package.swift)

if [ "$mode" = check ]; then
    swift-format lint --configuration .swift-format --recursive --parallel --strict "${paths[@]}"
else
    swift-format format --configuration .swift-format --recursive --parallel --in-place "${paths[@]}"
fi
