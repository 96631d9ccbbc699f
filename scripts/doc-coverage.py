#!/usr/bin/env python3
"""Documentation coverage from the compiler's symbol graphs, and the graphs DocC reads.

Every public or open symbol declared under Sources/ must carry a `///` doc comment. The
compiler knows which symbols are public, so this reads its symbol graph instead of grepping:

    swift build --target Instafilter --scratch-path /tmp/docs-build \\
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc DIR
    (the same with --target CyanotypeVideo for the video module's graph)
    python3 scripts/doc-coverage.py DIR                   # all four library modules
    python3 scripts/doc-coverage.py DIR --module Instafilter

It prints each undocumented symbol as `path:line: kind name`, then a count per module and
folder, and exits 1 when any is undocumented (0 otherwise; 2 for bad arguments or graphs).
Symbols without a source location (members synthesized by the compiler or inherited through a
protocol extension) and symbols declared outside Sources/ (Foundation and Glibc, which
`@_exported import Foundation` pulls into Cyanotype's graph) are not ours and are skipped.

`--prune-into OUT` also writes, for each module, a copy of its graph holding only our symbols
(plus the members the compiler synthesized for our types) for `docc convert`: without it,
DocC would document all of Foundation as part of Cyanotype. scripts/docs.sh runs both.
"""
import argparse, collections, glob, json, os, sys
from urllib.parse import unquote, urlparse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODULES = ["Cyanotype", "Instafilter", "CyanotypeVideo", "CyanotypeCodecs"]
PUBLIC = {"public", "open"}
SYNTHESIZED = "::SYNTHESIZED::"


def fail(message):
    print(f"doc-coverage: {message}", file=sys.stderr)
    sys.exit(2)


def source_path(symbol, sources):
    """The symbol's file relative to the repository, when it is declared under `sources`."""
    uri = symbol.get("location", {}).get("uri")
    if not uri:
        return None
    path = os.path.realpath(unquote(urlparse(uri).path))
    if not path.startswith(sources + os.sep):
        return None
    return os.path.relpath(path, ROOT)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        fail(f"cannot read {path}: {error}")


def graphs_of(directory, module):
    """The module's main graph and its extension graphs (`Module@Other.symbols.json`)."""
    main = os.path.join(directory, f"{module}.symbols.json")
    if not os.path.exists(main):
        fail(f"no symbol graph for {module} in {directory} (build with -emit-symbol-graph first; see scripts/docs.sh)")
    return [main] + sorted(glob.glob(os.path.join(directory, f"{module}@*.symbols.json")))


def ours(graph, sources):
    """Identifiers of the symbols declared under Sources/, and of those synthesized for them."""
    declared = {s["identifier"]["precise"] for s in graph["symbols"] if source_path(s, sources)}
    synthesized = {
        s["identifier"]["precise"] for s in graph["symbols"]
        if SYNTHESIZED in s["identifier"]["precise"]
        and s["identifier"]["precise"].split(SYNTHESIZED, 1)[1] in declared
    }
    return declared | synthesized


def prune(graph, keep):
    """Our part of `graph`, for DocC: `{"": main graph, "Foundation": extension graph, ...}`.

    Members we add to a re-exported module's types (`CGPoint.applying(_:)`) sit in the main
    graph beside their parent, which is not ours; DocC wants them in an extension graph, with
    one `swift.extension` block per extended type, as the compiler writes them for types of
    modules that are imported but not re-exported."""
    symbols = {s["identifier"]["precise"]: s for s in graph["symbols"]}
    kept = [s for s in graph["symbols"] if s["identifier"]["precise"] in keep]
    relationships = [dict(r) for r in graph.get("relationships", []) if r["source"] in keep]
    parent = {r["source"]: r for r in relationships if r["kind"] == "memberOf"}
    blocks = {}     # (extended module, extended type's identifier) -> extension block symbol
    extension = {}  # extended module -> its symbols and relationships
    for symbol in kept:
        member_of = parent.get(symbol["identifier"]["precise"])
        module = symbol.get("swiftExtension", {}).get("extendedModule")
        if member_of is None or member_of["target"] in keep or module is None:
            continue
        target = member_of["target"]
        part = extension.setdefault(module, {"symbols": [], "relationships": []})
        if (module, target) not in blocks:
            path = symbols.get(target, {}).get("pathComponents") or member_of.get("targetFallback", target).split(".")[1:]
            title = ".".join(path)
            block = {
                "kind": {"identifier": "swift.extension", "displayName": "Extension"},
                "identifier": {"precise": "s:e:" + symbol["identifier"]["precise"], "interfaceLanguage": "swift"},
                "pathComponents": path,
                "names": {"title": title},
                "declarationFragments": [
                    {"kind": "keyword", "spelling": "extension"}, {"kind": "text", "spelling": " "},
                    {"kind": "typeIdentifier", "spelling": title, "preciseIdentifier": target}],
                "accessLevel": "public",
                "swiftExtension": {"extendedModule": module, "typeKind": symbol["swiftExtension"].get("typeKind", "swift.struct")},
            }
            blocks[(module, target)] = block
            part["symbols"].append(block)
            part["relationships"].append({"kind": "extensionTo", "source": block["identifier"]["precise"],
                                          "target": target, "targetFallback": f"{module}.{title}"})
        block = blocks[(module, target)]
        member_of["target"] = block["identifier"]["precise"]
        member_of["targetFallback"] = f"{module}.{block['names']['title']}"
        part["symbols"].append(symbol)
    moved = {s["identifier"]["precise"] for part in extension.values() for s in part["symbols"]}
    out = {"": dict(graph, symbols=[s for s in kept if s["identifier"]["precise"] not in moved],
                    relationships=[r for r in relationships if r["source"] not in moved])}
    for module, part in extension.items():
        ids = {s["identifier"]["precise"] for s in part["symbols"]}
        part["relationships"] += [r for r in relationships if r["source"] in ids]
        out[module] = dict(graph, **part)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="the folder the compiler wrote the symbol graphs into")
    parser.add_argument("--module", action="append", dest="modules",
                        help=f"a module to check (repeatable; default: {', '.join(DEFAULT_MODULES)})")
    parser.add_argument("--sources", default=os.path.join(ROOT, "Sources"),
                        help="the folder whose declarations count (default: Sources/)")
    parser.add_argument("--prune-into", metavar="OUT",
                        help="also write each module's graphs, pruned to our symbols, into OUT/MODULE/")
    parser.add_argument("--quiet", action="store_true", help="print only the counts")
    args = parser.parse_args()
    sources = os.path.realpath(args.sources)
    modules = args.modules or DEFAULT_MODULES

    missing = []  # (path, line, kind, name, module)
    public_count = collections.Counter()
    for module in modules:
        for path in graphs_of(args.directory, module):
            graph = load(path)
            for symbol in graph["symbols"]:
                file = source_path(symbol, sources)
                if file is None or symbol.get("accessLevel") not in PUBLIC:
                    continue
                public_count[module] += 1
                if "docComment" not in symbol:
                    line = symbol["location"]["position"]["line"] + 1
                    kind = symbol["kind"]["identifier"].removeprefix("swift.")
                    name = ".".join(symbol["pathComponents"])
                    missing.append((file, line, kind, name, module))
            if args.prune_into:
                out = os.path.join(args.prune_into, module)
                os.makedirs(out, exist_ok=True)
                name = os.path.basename(path).removesuffix(".symbols.json")
                for extended, part in prune(graph, ours(graph, sources)).items():
                    if not part["symbols"]:
                        continue
                    file = f"{name}@{extended}.symbols.json" if extended else f"{name}.symbols.json"
                    with open(os.path.join(out, file), "w", encoding="utf-8") as f:
                        json.dump(part, f)

    missing.sort()
    if not args.quiet:
        for file, line, kind, name, _ in missing:
            print(f"{file}:{line}: {kind} {name}")
    by_module = collections.Counter(m[4] for m in missing)
    by_folder = collections.Counter("/".join(m[0].split("/")[:3]) for m in missing)
    for module in modules:
        print(f"{module}: {public_count[module] - by_module[module]} of {public_count[module]} "
              f"public symbols documented, {by_module[module]} undocumented")
    for folder, count in by_folder.most_common():
        print(f"  {folder}: {count}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
