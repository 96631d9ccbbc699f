import Foundation
import Testing

// The engine offers kernel kinds (warp, fold, cell, neighbourhood, resampling, ...) and knows
// no filter: every filter's maths lives in its own file under Filters/. These tests keep it so
// by reading the engine's sources (code and comments alike) for filter names.

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let engine = root.appendingPathComponent("Sources/Cyanotype/Engine")

/// Every Swift file under Sources/Cyanotype/Engine (recursively), by path relative to Engine/.
private func engineSources() throws -> [(String, String)] {
    guard let walker = FileManager.default.enumerator(at: engine, includingPropertiesForKeys: nil) else { return [] }
    var out: [(String, String)] = []
    for case let url as URL in walker where url.pathExtension == "swift" {
        let relative = String(url.path.dropFirst(engine.path.count + 1))
        out.append((relative, try String(contentsOf: url, encoding: .utf8)))
    }
    return out.sorted { $0.0 < $1.0 }
}

/// Apple's filter names from the spec the catalogue is generated from (every filter, built
/// here or not yet).
private func specFilterNames() throws -> [String] {
    let data = try Data(contentsOf: root.appendingPathComponent("spec/coreimage-filters.json"))
    let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    return list.compactMap { $0["name"] as? String }
}

/// "file:line: text" for each line of `sources` containing `word`.
private func places(of word: String, in sources: [(String, String)], caseInsensitive: Bool = false) -> [String] {
    var out: [String] = []
    for (file, text) in sources {
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let found = caseInsensitive ? line.range(of: word, options: .caseInsensitive) != nil : line.contains(word)
            if found { out.append("Engine/\(file):\(i + 1): \(line.trimmingCharacters(in: .whitespaces))") }
        }
    }
    return out
}

@Suite struct EngineNamesNoFilterTests {
    /// Core Image operations the engine itself provides (`CIImage.cropped(to:)`,
    /// `clampedToExtent()`, `transformed(by:)` and the fusable colour matrix of the point
    /// kind), which Core Image also offers as filters of the same name.
    static let engineOperations: Set<String> = ["AffineTransform", "Clamp", "ColorMatrix", "Crop"]

    /// Words of the filters whose maths once lived in the engine, and of their families.
    static let filterWords = [
        "twirl", "vortex", "pinch", "bump", "torus", "tunnel", "splash", "perspective", "kaleidoscope",
        "fourfold", "sixfold", "eightfold", "twelvefold", "glide", "pixellat", "crystalliz", "pointilliz",
        "hexagonal", "sobel", "median", "morpholog", "gaussian", "lanczos", "bicubic", "mitchell",
        "halftone", "vignette", "sepia", "posteriz", "bloom", "gloom", "thermal", "x-ray",
    ]

    @Test func engineSourcesNameNoCoreImageFilter() throws {
        let sources = try engineSources()
        #expect(sources.count >= 10, "found \(sources.count) Swift files under \(engine.path)")
        let names = try specFilterNames()
        #expect(names.count >= 200)
        for name in names {
            let hits = places(of: name, in: sources)
            #expect(hits.isEmpty, "Engine/ names \(name): \(hits.joined(separator: "; "))")
        }
    }

    @Test func engineSourcesNameNoFilterWithoutItsPrefix() throws {
        let sources = try engineSources()
        for name in try specFilterNames() where name.hasPrefix("CI") {
            let stem = String(name.dropFirst(2))
            if Self.engineOperations.contains(stem) { continue }
            let hits = places(of: stem, in: sources)
            #expect(hits.isEmpty, "Engine/ names \(stem) (\(name)): \(hits.joined(separator: "; "))")
        }
    }

    @Test func engineSourcesUseNoFilterWords() throws {
        let sources = try engineSources()
        for word in Self.filterWords {
            let hits = places(of: word, in: sources, caseInsensitive: true)
            #expect(hits.isEmpty, "Engine/ mentions \"\(word)\": \(hits.joined(separator: "; "))")
        }
    }
}

/// The rendering article lists the optimiser's rewrites as the pass's own doc comment does:
/// the same numbers for the same functions, each of them defined in the engine.
@Suite struct RenderingArticleMatchesTheOptimiser {
    /// (number, function) pairs of the lines of `text` that read `<prefix> N.<marker>...`,
    /// the function being the first name in backticks on the line, in order.
    static func numberedRewrites(in text: String, linePrefix: String, marker: String) -> [(Int, String)] {
        var out: [(Int, String)] = []
        for line in text.split(separator: "\n") {
            var rest = Substring(line.trimmingCharacters(in: .whitespaces))
            guard rest.hasPrefix(linePrefix) else { continue }
            rest = rest.dropFirst(linePrefix.count).drop { $0 == " " }
            let digits = rest.prefix { $0.isNumber }
            guard let number = Int(digits), rest.dropFirst(digits.count).hasPrefix("." + marker),
                let open = rest.firstIndex(of: "`")
            else { continue }
            out.append((number, String(rest[rest.index(after: open)...].prefix { $0 != "`" })))
        }
        return out
    }

    @Test func theArticleNamesEveryRewriteUnderItsNumber() throws {
        let optimizer = try String(contentsOf: engine.appendingPathComponent("Optimizer.swift"), encoding: .utf8)
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/Cyanotype/Cyanotype.docc/HowRenderingWorks.md"), encoding: .utf8)
        // The pass's list is the `///` block over `enum Optimizer`; 0 is named in its prose.
        let block = try #require(optimizer.range(of: "/// The one rewrite pass.")).lowerBound
        let end = try #require(optimizer.range(of: "\nenum Optimizer {")).lowerBound
        let doc = String(optimizer[block..<end])
        var listed = Self.numberedRewrites(in: doc, linePrefix: "///", marker: " `")
        #expect(doc.contains("`reduceDecodes` (0."))
        listed.insert((0, "reduceDecodes"), at: 0)
        let documented = Self.numberedRewrites(in: article, linePrefix: "", marker: " **")
        #expect(listed.map(\.0) == Array(0..<listed.count), "the pass's list: \(listed)")
        #expect(documented.map(\.0) == listed.map(\.0), "article: \(documented)")
        #expect(documented.map(\.1) == listed.map(\.1))
        let sources = try engineSources().map(\.1).joined(separator: "\n")
        for (_, name) in listed {
            let defined = sources.contains("static func \(name)(") || sources.contains("static func \(name)<")
            #expect(defined, "\(name) is not a rewrite of the engine")
        }
    }

    /// The body of `static func name` in `text` (to the closing brace at its indentation).
    static func body(of name: String, in text: String) throws -> String {
        let start = try #require(text.range(of: "    static func \(name)"), "no static func \(name)")
        let end = try #require(text.range(of: "\n    }\n", range: start.upperBound..<text.endIndex), "no end to \(name)")
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// The names in `text`, among `candidates`, in the order they first occur (as whole words).
    static func mentioned(_ candidates: Set<String>, in text: String) -> [String] {
        var seen: [String] = []
        var word = ""
        for c in text + " " {
            if c.isLetter || c.isNumber || c == "_" { word.append(c); continue }
            if candidates.contains(word) && !seen.contains(word) { seen.append(word) }
            word = ""
        }
        return seen
    }

    /// The list is what the code runs: the rewrites `optimize` calls are the list's top-level
    /// ones in its order, the colour-run ones are called by `fuseColorStages` in its order, and
    /// `optimize` uses no other engine function but its two walkers (a rewrite added to the
    /// code and not to the list fails here).
    @Test func theListIsWhatOptimizeRuns() throws {
        let optimizer = try String(contentsOf: engine.appendingPathComponent("Optimizer.swift"), encoding: .utf8)
        let block = try #require(optimizer.range(of: "/// The one rewrite pass.")).lowerBound
        let end = try #require(optimizer.range(of: "\nenum Optimizer {")).lowerBound
        let listed = [(0, "reduceDecodes")] + Self.numberedRewrites(in: String(optimizer[block..<end]), linePrefix: "///", marker: " `")
        let names = listed.map(\.1)
        // Every static function of the engine whose first parameter is a node or a colour run
        // (the fused node or the `ColorRun` role)
        // is a candidate: a new rewrite is one too.
        let sources = try engineSources().map(\.1).joined(separator: "\n")
        var functions = Set<String>()
        for part in sources.components(separatedBy: "static func ").dropFirst() {
            let parameters = part.prefix { $0 != ")" }.drop { $0 != "(" }.prefix { $0 != "," }
            guard parameters.contains(": RecipeNode") || parameters.contains(": FusedColorNode") || parameters.contains(": any ColorRun")
            else { continue }
            functions.insert(String(part.prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
        }
        let walkers: Set<String> = ["postOrder", "rewriteRootRun"]
        let called = Self.mentioned(functions.subtracting(walkers).subtracting(["optimize"]), in: try Self.body(of: "optimize", in: optimizer))
        #expect(called == names.filter { called.contains($0) }, "optimize runs \(called); the list says \(names)")
        #expect(Set(called).isSubset(of: names), "run by optimize but not listed: \(Set(called).subtracting(names).sorted())")
        let inRuns = names.filter { !called.contains($0) }
        #expect(inRuns == ["cancelConversions", "foldMatrices"], "listed but not run by optimize: \(inRuns)")
        let fuse = try Self.body(of: "fuseColorStages", in: optimizer)
        #expect(Self.mentioned(Set(inRuns), in: fuse) == inRuns, "fuseColorStages runs \(Self.mentioned(Set(inRuns), in: fuse))")
    }

    /// The kinds table names each kind's node as the engine declares it: every generic node of
    /// Engine/Kinds/ is in the table, and every node in the table is a class (or alias) of the
    /// engine.
    @Test func theKindsTableMatchesEngineKinds() throws {
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/Cyanotype/Cyanotype.docc/HowRenderingWorks.md"), encoding: .utf8)
        let table = try #require(article.range(of: "| Kind | Node |"))
        // The rest of the header line, the separator, then the rows.
        let rows = article[table.upperBound...].split(separator: "\n").dropFirst(2).prefix { $0.hasPrefix("|") }
        let tableNodes: [String] = rows.compactMap { row in
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let open = cells[1].firstIndex(of: "`") else { return nil }
            return String(cells[1][cells[1].index(after: open)...].prefix { $0 != "`" })
        }
        #expect(tableNodes.count == rows.count && rows.count == 10, "\(Array(rows))")
        let sources = try engineSources()
        let all = sources.map(\.1).joined(separator: "\n")
        for node in tableNodes {
            let declared = ["final class \(node)", "class \(node)", "typealias \(node)"].contains { all.contains($0 + ":") || all.contains($0 + "<") || all.contains($0 + " ") }
            #expect(declared, "the table's \(node) is not declared in Engine/")
        }
        var kindNodes: [String] = []
        for (file, text) in sources where file.hasPrefix("Kinds/") {
            for part in text.components(separatedBy: "final class ").dropFirst() {
                let name = String(part.prefix { $0.isLetter || $0.isNumber })
                if name.hasSuffix("Node") { kindNodes.append(name) }
            }
        }
        #expect(!kindNodes.isEmpty)
        for node in kindNodes { #expect(tableNodes.contains(node), "Engine/Kinds declares \(node), which the table lacks") }
    }
}
