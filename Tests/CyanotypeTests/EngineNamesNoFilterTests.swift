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
}
