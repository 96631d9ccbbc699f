import Foundation

// Laid-out text as an image source: every glyph's anti-aliased bitmap is drawn by FreeType when
// the image is made (once per glyph, size and quarter-pixel phase, cached per face), and rows
// are composed from them at render time, so tiles are independent and any tiling gives the
// same pixels.

/// The glyphs of a `TextLayout` placed on the pixel grid, drawn row by row.
struct TextStage: GeneratorStage {
    /// The image's pixel size.
    let width: Int, height: Int
    /// Where each glyph's coverage sits: offset into `coverage`, bitmap size, top-left pixel
    /// (column from the left, row from the top) and colour.
    struct Placement: Sendable {
        let offset: Int, width: Int, height: Int
        let x: Int, y: Int
        let color: SIMD4<Float>
    }
    let placements: [Placement]
    /// Every glyph bitmap used, one after another.
    let coverage: [UInt8]
    /// For each band of `bandRows` rows that has ink, the placements that reach into it.
    let bands: [Int: [Int32]]
    static let bandRows = 16
    /// Glyph bitmaps one image may hold (they are drawn when the image is made).
    static let coverageBudget = 256 << 20

    /// The layout on a grid of whole pixels: the typographic box grown to any ink outside it,
    /// plus `padding` pixels on every side.
    init(_ layout: TextLayout, padding: Int) throws(TextError) {
        // Kerning or sizes can push glyphs anywhere: check before any pixel arithmetic.
        let limit = Double(PixelRect.limit)
        let inside = { (v: Double) in v.isFinite && abs(v) < limit }
        guard inside(layout.width), inside(layout.height), layout.glyphs.allSatisfy({ inside($0.x) && inside($0.baseline) }) else {
            throw .tooLarge(width: layout.width, height: layout.height)
        }
        var coverage: [UInt8] = []
        var drawn: [DrawnKey: (offset: Int, bitmap: GlyphBitmap)] = [:]
        var raw: [(offset: Int, bitmap: GlyphBitmap, x: Int, y: Int, color: SIMD4<Float>)] = []
        var minX = 0.0, minY = 0.0, maxX = layout.width, maxY = layout.height
        for g in layout.glyphs where g.pixels > 0 {
            // Quarter-pixel positions horizontally, whole pixels vertically (crisp baselines).
            let q = Int((g.x * 4).rounded())
            let column = q >> 2, phase = q & 3
            let key = DrawnKey(face: g.face, glyph: g.glyph, size: Int((g.pixels * 64).rounded()), phase: phase)
            let entry: (offset: Int, bitmap: GlyphBitmap)
            if let known = drawn[key] {
                entry = known
            } else {
                let b = g.face.bitmap(glyph: g.glyph, pixels: g.pixels, phase: phase)
                guard coverage.count + b.coverage.count <= Self.coverageBudget else { throw .glyphsTooLarge(budget: Self.coverageBudget) }
                entry = (coverage.count, b)
                coverage.append(contentsOf: b.coverage)
                drawn[key] = entry
            }
            let b = entry.bitmap
            guard b.width > 0, b.height > 0 else { continue }
            let x = column + b.left, y = Int(g.baseline.rounded()) - b.top
            minX = min(minX, Double(x)); maxX = max(maxX, Double(x + b.width))
            minY = min(minY, Double(y)); maxY = max(maxY, Double(y + b.height))
            raw.append((entry.offset, b, x, y, g.color))
        }
        let left = Int(minX.rounded(.down)), top = Int(minY.rounded(.down))
        width = Int(maxX.rounded(.up)) - left + 2 * padding
        height = Int(maxY.rounded(.up)) - top + 2 * padding
        guard width <= PixelRect.limit, height <= PixelRect.limit else { throw .tooLarge(width: Double(width), height: Double(height)) }
        placements = raw.map {
            Placement(
                offset: $0.offset, width: $0.bitmap.width, height: $0.bitmap.height,
                x: $0.x - left + padding, y: $0.y - top + padding, color: $0.color)
        }
        var bands: [Int: [Int32]] = [:]
        for (i, p) in placements.enumerated() {
            let first = max(0, p.y / Self.bandRows), last = (p.y + p.height - 1) / Self.bandRows
            if first <= last { for b in first...last { bands[b, default: []].append(Int32(i)) } }
        }
        self.bands = bands
        self.coverage = coverage
    }

    private struct DrawnKey: Hashable {
        let face: FontFace
        let glyph: UInt32
        let size: Int, phase: Int
    }

    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        out.update(repeating: .zero, count: count)
        let row = height - 1 - y  // Core Image's y grows upwards
        guard row >= 0, row < height else { return }
        guard let band = bands[row / Self.bandRows] else { return }
        let k: Float = 1 / 255
        coverage.withUnsafeBufferPointer { cov in
            placements.withUnsafeBufferPointer { placed in
                for i in band {
                    let p = placed[Int(i)]
                    let r = row - p.y
                    guard r >= 0, r < p.height else { continue }
                    let c0 = max(p.x, x), c1 = min(p.x + p.width, x + count)
                    guard c0 < c1 else { continue }
                    let src = p.offset + r * p.width - p.x
                    let color = p.color, alpha = color.w
                    for c in c0..<c1 {
                        let a = Float(cov[src + c]) * k
                        guard a > 0 else { continue }
                        // Source over: glyphs of one run rarely overlap, but kerned pairs may.
                        out[c - x] = out[c - x] * (1 - a * alpha) + color * a
                    }
                }
            }
        }
    }

    var label: String { "text \(width)x\(height), \(placements.count) glyphs" }

    /// The image: extent (0, 0, width, height); the empty image when there is nothing to show.
    func image() -> CIImage {
        guard width > 0, height > 0 else { return CIImage.empty() }
        return CIImage(node: GeneratorNode(stage: self, extent: CGRect(x: 0, y: 0, width: width, height: height)))
    }
}
