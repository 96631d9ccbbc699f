import Foundation
import Cyanotype

/// 16. CITextImageGenerator: a 1000-character paragraph (one line, as Core Image sets it:
/// no wrapping), shaped, drawn and rendered to RGBA8; the first image also opens the fonts
/// and draws the glyphs, later ones find them cached.
struct TextParagraph: Workload {
    let key = "text"

    /// 1000 characters of Latin prose with punctuation and kerning pairs.
    static let paragraph: String = {
        let words = [
            "Lorem", "ipsum", "dolor", "sit", "amet,", "consectetur", "adipiscing", "elit;", "AVATAR", "Wave",
            "Tower", "office", "fjord", "quiz", "Jackdaws", "vexed", "yellow", "Typography.", "Kerning", "AV",
        ]
        var s = ""
        var i = 0
        while s.count < 1000 {
            s += (s.isEmpty ? "" : " ") + words[(i * 7 + i / 3) % words.count]
            i += 1
        }
        return String(s.prefix(1000))
    }()

    func run(_ env: BenchEnvironment) throws -> [Row] {
        let text = Self.paragraph
        var size = CGSize.zero
        var buffer: UnsafeMutableRawPointer?
        defer { buffer?.deallocate() }
        func draw() throws {
            let f = CIFilter.textImageGenerator()
            f.text = text
            f.fontName = "DejaVu Sans"
            f.fontSize = 16
            let image = try f.makeOutputImage()
            size = image.extent.size
            let rowBytes = Int(size.width) * 4
            if buffer == nil { buffer = .allocate(byteCount: rowBytes * Int(size.height), alignment: 64) }
            try env.context.renderChecked(image, toBitmap: buffer!, rowBytes: rowBytes, bounds: image.extent, format: .RGBA8, colorSpace: env.sRGB)
        }
        let cold = try bestOf(1, draw)
        let warm = try bestOf(max(env.runs, 5), draw)
        let mp = Double(size.width * size.height) / 1e6
        env.notes.append(String(format: "16 text: %d characters -> %.0fx%.0f pixels", text.count, size.width, size.height))
        return [
            Row(
                workload: "16 text: 1000-char paragraph, 16 pt -> RGBA8", ours: .time(warm), oursCPU: warm.cpu, megapixels: mp,
                reference: "20 ms budget", referenceValue: .seconds(0.020), target: .ratioAtMost(1)),
            Row(
                workload: "16 text: the same, first image (fonts opened)", ours: .time(cold), oursCPU: cold.cpu, megapixels: mp,
                reference: "-", referenceValue: nil, target: .info),
        ]
    }
}
