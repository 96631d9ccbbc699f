#!/usr/bin/env bash
# Builds the documentation: the compiler's symbol graphs, then the toolchain's `docc convert`
# on each module's catalogue (Sources/<Module>/<Module>.docc), into .build/docs/<Module>.doccarchive.
# Fails on any DocC warning, and when a public symbol has no doc comment
# (scripts/doc-coverage.py lists them).
#
#   scripts/docs.sh                     # Cyanotype, Instafilter, CyanotypeVideo and CyanotypeCodecs
#   scripts/docs.sh Cyanotype           # one module
#
# The symbol graphs come from a build of its own (.build/docs-build; DOCS_SCRATCH overrides),
# so the flags that emit them never invalidate the main .build. DOCC picks the docc binary
# (default: the one beside `swift`). Open an archive with any static file server, e.g.
# `python3 -m http.server -d .build/docs/Cyanotype.doccarchive` and then
# http://localhost:8000/documentation/cyanotype.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(Cyanotype Instafilter CyanotypeVideo CyanotypeCodecs)
scratch=${DOCS_SCRATCH:-.build/docs-build}
out=.build/docs
graphs=$out/symbol-graphs
pruned=$out/docc-symbol-graphs
docc=${DOCC:-$(dirname "$(readlink -f "$(command -v swift)")")/docc}
[ -x "$docc" ] || { echo "docs: no docc at $docc (set DOCC)" >&2; exit 2; }

# The compiler writes a module's graphs when it compiles the module, so the graphs of modules
# an incremental build leaves alone stay from the build before; a missing one means a build
# from scratch.
build_graphs() {
    # Building Instafilter and CyanotypeVideo builds every library module below them
    # (Cyanotype, CyanotypeCodecs); the second build reuses the first's.
    for target in Instafilter CyanotypeVideo; do
        swift build --target "$target" --scratch-path "$scratch" \
            -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" 2>&1 \
            | { grep -E "error|warning:" || true; }
    done
}
rm -rf "$pruned"
mkdir -p "$graphs" "$pruned"
echo "== symbol graphs (swift build, scratch $scratch)"
build_graphs
for m in "${modules[@]}"; do
    if [ ! -f "$graphs/$m.symbols.json" ]; then
        echo "docs: no symbol graph for $m yet: building $scratch from scratch"
        rm -rf "$scratch" "$graphs"
        mkdir -p "$graphs"
        build_graphs
        break
    fi
done
for m in "${modules[@]}"; do
    # Extension graphs older than their module's main graph are from an earlier compile.
    for f in "$graphs/$m"@*.symbols.json; do
        if [ -e "$f" ] && [ "$f" -ot "$graphs/$m.symbols.json" ]; then rm -f "$f"; fi
    done
done

module_args=()
for m in "${modules[@]}"; do module_args+=(--module "$m"); done
# Our symbols only: Cyanotype re-exports Foundation, whose symbols its graph also holds.
python3 scripts/doc-coverage.py "$graphs" "${module_args[@]}" --prune-into "$pruned" --quiet > /dev/null || true

failed=0
for m in "${modules[@]}"; do
    catalog=Sources/$m/$m.docc
    [ -d "$catalog" ] || { echo "docs: $catalog is missing" >&2; failed=1; continue; }
    lower=$(echo "$m" | tr '[:upper:]' '[:lower:]')
    echo "== docc convert $catalog"
    log=$out/$m.docc.log
    status=0
    rm -rf "$out/$m.doccarchive"
    "$docc" convert "$catalog" \
        --additional-symbol-graph-dir "$pruned/$m" \
        --output-dir "$out/$m.doccarchive" \
        --fallback-display-name "$m" --fallback-bundle-identifier "org.cyanotype.$lower" \
        --fallback-default-module-kind "Framework" \
        --analyze --warnings-as-errors > "$log" 2>&1 || status=$?
    cat "$log"
    # --analyze also prints notes; any warning or error fails the build of the docs.
    if [ "$status" -ne 0 ] || grep -qE "(^|: )(warning|error):" "$log"; then
        echo "docs: docc reported problems for $m (see above)" >&2
        failed=1
    else
        echo "docs: $out/$m.doccarchive ($(grep -cE '(^|: )note:' "$log" || true) notes)"
    fi
done

echo "== documentation coverage"
python3 scripts/doc-coverage.py "$graphs" "${module_args[@]}" || failed=1
exit $failed
