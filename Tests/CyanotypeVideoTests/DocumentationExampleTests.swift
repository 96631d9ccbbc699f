import Foundation
import Testing

/// The Swift code in Sources/CyanotypeVideo/CyanotypeVideo.docc must be code these tests
/// compile and run: each snippet is looked up in AppleListingTests.swift (compared without
/// whitespace), so the catalogue cannot drift from code that builds.
@Suite struct VideoDocumentationExampleTests {
    @Test func everySnippetIsCompiledInAppleListingTests() throws {
        let here = URL(fileURLWithPath: #filePath)
        let listing = here.deletingLastPathComponent().appendingPathComponent("AppleListingTests.swift")
        let code = withoutWhitespace(try String(contentsOf: listing, encoding: .utf8))
        let page = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/CyanotypeVideo/CyanotypeVideo.docc/CyanotypeVideo.md")
        let blocks = try String(contentsOf: page, encoding: .utf8).components(separatedBy: "```swift\n").dropFirst()
        #expect(!blocks.isEmpty)
        for block in blocks {
            let body = block.components(separatedBy: "```").first ?? ""
            #expect(code.contains(withoutWhitespace(body)), "CyanotypeVideo.md: this snippet is not in AppleListingTests.swift:\n\(body)")
        }
    }

    /// `text` with every space and line break removed.
    func withoutWhitespace(_ text: String) -> String {
        String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init))
    }
}
