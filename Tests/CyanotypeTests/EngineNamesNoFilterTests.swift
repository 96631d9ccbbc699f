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
