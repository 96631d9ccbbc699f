import Cyanotype
import Foundation
import Testing
@testable import CyanotypeCLI
@testable import CyanotypeTool

// The tools ask the filter descriptors (reach, geometry, barcode, picture-relative inputs)
// instead of recognising filters by name: read the sources of the CLI, the shared tool code
// and the server and find no built-in filter's name outside a help text.

private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

@Suite struct FilterFactsTests {
    /// Every Swift source of the tools, with its path relative to the repository.
    static func toolSources() throws -> [(path: String, text: String)] {
        var out: [(String, String)] = []
        for folder in ["Sources/CyanotypeTool", "Sources/CyanotypeCLI", "Sources/CyanotypeServe"] {
            let base = repositoryRoot.appendingPathComponent(folder)
            guard let walk = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let name as String in walk where name.hasSuffix(".swift") {
                out.append(("\(folder)/\(name)", try String(contentsOf: base.appendingPathComponent(name), encoding: .utf8)))
            }
        }
        return out
    }

    @Test("no tool source names a built-in filter or tests a filter's name, except in help texts")
    func toolsDoNotRecogniseFiltersByName() throws {
        let sources = try Self.toolSources()
        #expect(sources.count >= 20, "found only \(sources.map(\.path))")
        let names = Set(CIFilter.filterNames(inCategory: nil))
        #expect(names.count >= 200)
        let quoted = try Regex(#""(CI[A-Za-z0-9]+)""#)
        let nameTests = try Regex(#"(descriptor|filter)\.name(\.contains\(|\.hasPrefix\(| ==)"#)
        for (path, text) in sources {
            var inHelp = false
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                // A multi-line string literal is help text (examples name filters on purpose).
                if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inHelp.toggle() }
                if inHelp || line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                for match in line.matches(of: quoted) {
                    let word = String(line[match.range].dropFirst().dropLast())
                    #expect(!names.contains(word), "\(path):\(number + 1) names \(word): ask its descriptor instead")
                }
                #expect(line.firstMatch(of: nameTests) == nil, "\(path):\(number + 1) tests a filter's name: \(line)")
            }
        }
    }

    @Test("the words the tools used to guess from are gone: isBarcode, readsPastEdges by category, the vignette by name")
    func theOldGuessesAreGone() throws {
        let all = try Self.toolSources().map(\.text).joined(separator: "\n")
        for guess in ["contains(\"Code\")", "func isBarcode", "var readsPastEdges", "var keepsRectangle", "contains(\"qr\")", "contains(\"code128\")"] {
            #expect(!all.contains(guess), "a tool still guesses: \(guess)")
        }
    }

    @Test("a number past its limit reaches the filter as written; the filter clamps it, once")
    func numbersReachTheFilterAsWritten() throws {
        let f = try ResolvedFilter(parsing: "boxBlur radius=5000") { (_: String) throws(CLIError) -> CIImage in CIImage.empty() }
        #expect((f.values[kCIInputRadiusKey] as? NSNumber)?.doubleValue == 5000)
        // The box blur's limit is 2000: the extent grows by 2000 on each side, not 5000.
        let out = try f.apply(to: CIImage(color: CIColor(red: 1, green: 1, blue: 1)).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4)))
        #expect(abs(out.extent.width - (4 + 2 * 2000)) < 0.5, "\(out.extent)")
    }

    @Test("PDF417 is a barcode to 'generate': whole-pixel modules on white at the requested size")
    func pdf417IsScaledAsABarcode() throws {
        let w = try Workspace()
        let r = try w.run("generate", "pdf417BarcodeGenerator message=\"cyanotype\"", "-o", "p.png", "--size", "600x300")
        #expect(r.status == 0, "\(r.stderr)")
        let d = try w.decoded("p.png")
        #expect(d.width == 600 && d.height == 300)
        // Scaled by a whole factor with nearest sampling: only black and white, no grey edges.
        let values = Set(d.samples.enumerated().filter { $0.offset % 4 == 0 }.map(\.element))
        #expect(values.isSubset(of: [0, 255]) && values.count == 2, "\(values.sorted())")
        // A quiet zone of white all round.
        #expect(d.pixel(0, 0)[0] == 255 && d.pixel(599, 299)[0] == 255 && d.pixel(0, 299)[0] == 255)
        let tiny = try w.run("generate", "pdf417BarcodeGenerator message=\"cyanotype\"", "-o", "t.png", "--size", "20x20")
        #expect(tiny.status == 2 && tiny.stderr.contains("needs at least") && !w.exists("t.png"), "\(tiny.stderr)")
    }
}
