import Cyanotype
import Foundation
import Instafilter
import Testing

/// The code in Sources/Instafilter/Instafilter.docc, compiled and run here; the test fails
/// when a Swift snippet there is not in this file (compared without whitespace).
@Suite struct InstafilterDocumentationExampleTests {
    @Test func everySnippetIsCompiledHere() throws {
        let here = URL(fileURLWithPath: #filePath)
        let code = withoutWhitespace(try String(contentsOf: here, encoding: .utf8))
        let page = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/Instafilter/Instafilter.docc/Instafilter.md")
        let blocks = try String(contentsOf: page, encoding: .utf8).components(separatedBy: "```swift\n").dropFirst()
        #expect(!blocks.isEmpty)
        for block in blocks {
            let body = block.components(separatedBy: "```").first ?? ""
            let found = code.contains(withoutWhitespace(body))
            #expect(found, "Instafilter.md: this snippet is not in DocumentationExampleTests.swift:\n\(body)")
        }
    }

    /// `text` with every space and line break removed.
    func withoutWhitespace(_ text: String) -> String {
        String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init))
    }

    @Test func landingPage() throws {
        let image = CIImage(color: CIColor(red: 0.6, green: 0.5, blue: 0.4)).cropped(to: CGRect(x: 0, y: 0, width: 48, height: 32))
        let clarendon = InstaClarendon()
        clarendon.intensity = 0.7
        let chain = FilterChain()
        chain.append(clarendon)
        chain.append(InstaGrain())
        let preview = Renderer.shared.render(image: image, with: chain)
        let jpeg = try Renderer.shared.export(
            image: image, with: chain,
            format: .jpeg(compressionQuality: 0.9), maxSize: 2048)

        #expect(preview.extent == image.extent)
        #expect(jpeg.starts(with: [0xFF, 0xD8]))
    }
}
