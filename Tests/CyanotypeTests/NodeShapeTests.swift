import Foundation
import Testing

// The node stays small (issue #25, point 2): `RecipeNode` holds its extent, inputs, input
// rectangle, evaluation, one `NodeTraits` value and a label; what only one kind of node can do
// is an opt-in protocol (Engine/NodeRoles.swift), so code asks roles, not node classes. These
// tests read the sources, as EngineNamesNoFilterTests does, so the shape cannot drift back.

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Every Swift file under `folder` (recursively), by path relative to the repository.
private func swiftFiles(under folder: String) throws -> [(path: String, text: String)] {
    let base = root.appendingPathComponent(folder)
    guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
    var out: [(path: String, text: String)] = []
    for case let url as URL in walker where url.pathExtension == "swift" {
        out.append((String(url.path.dropFirst(root.path.count + 1)), try String(contentsOf: url, encoding: .utf8)))
    }
    return out.sorted { $0.path < $1.path }
}

@Suite struct NodeShapeTests {
    @Test func atMostTwoCastsOnNodeClassesInSources() throws {
        // The issue's measure of a cast on a node class: `as? XNode`, `as! XNode`, `is XNode`.
        let classCast = try NSRegularExpression(pattern: #"as\? [A-Z][A-Za-z]*Node\b|is [A-Z][A-Za-z]*Node\b|as! [A-Z][A-Za-z]*Node"#)
        let files = try swiftFiles(under: "Sources")
        #expect(files.count > 100, "found \(files.count) Swift files under Sources")
        var hits: [String] = []
        for (path, text) in files {
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let s = String(line)
                if s.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                if classCast.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil {
                    hits.append("\(path):\(i + 1): \(s.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(hits.count <= 2, "casts on node classes: \(hits.joined(separator: "; "))")
    }

    /// The members declared in `class RecipeNode`'s body: lines one level in that declare a
    /// `let`, `var`, `func` or `init`.
    @Test func recipeNodeHasAtMostTenMembers() throws {
        let text = try String(
            contentsOf: root.appendingPathComponent("Sources/Cyanotype/Engine/RecipeNode.swift"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("class RecipeNode") })
        let end = try #require(lines[start...].firstIndex { $0 == "}" })
        let declarations = ["let ", "var ", "func ", "init("]
        let members = lines[(start + 1)..<end].filter { line in
            guard line.hasPrefix("    "), !line.hasPrefix("     ") else { return false }
            let body = line.dropFirst(4)
            return declarations.contains { body.hasPrefix($0) }
        }
        #expect(members.count >= 6, "the body parsed: \(members)")
        #expect(members.count <= 10, "RecipeNode's members: \(members)")
        #expect(members.contains { $0.contains("let traits: NodeTraits") })
    }
}
