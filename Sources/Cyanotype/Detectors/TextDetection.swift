import Foundation

/// Text regions: the image in grey, each pixel compared with its neighbourhood's mean (ink is
/// darker, or lighter, than its surroundings by a margin), the ink's connected components kept
/// when they are shaped like characters, and characters of like height on a shared baseline
/// with gaps under their height chained into lines. A region of one character is not text.
/// Each line is a `CITextFeature`; its characters are its `subFeatures` when asked for.
enum TextDetection {
    static func detect(_ image: CIImage, _ context: CIContext, _ o: DetectorOptions) throws(CIDetectorError) -> [CIFeature] {
        let raster = try GreyRaster(image, context, maxSide: o.highAccuracy ? 1600 : 800)
        let minHeight = max(6.0, (o.minFeatureSize ?? 0) * Double(min(raster.width, raster.height)) * 0.25)
        let lines = find(raster, minCharacterHeight: minHeight)
        func feature(_ b: Box, _ subs: [CITextFeature]?) -> CITextFeature {
            let tl = raster.imagePoint(Double(b.minX), Double(b.minY)), br = raster.imagePoint(Double(b.maxX), Double(b.maxY))
            let q = Quadrilateral(topLeft: tl, topRight: CGPoint(x: br.x, y: tl.y), bottomLeft: CGPoint(x: tl.x, y: br.y), bottomRight: br)
            return CITextFeature(corners: q, subFeatures: subs)
        }
        return lines.prefix(o.maxFeatureCount ?? Int.max).map { line in
            feature(line.box, o.returnSubFeatures ? line.characters.map { feature($0, nil) } : nil)
        }
    }

    /// A box in raster pixels: first and past-the-end columns and rows.
    struct Box: Equatable {
        var minX, minY, maxX, maxY: Int
        var width: Int { maxX - minX }
        var height: Int { maxY - minY }
        func union(_ b: Box) -> Box { Box(minX: min(minX, b.minX), minY: min(minY, b.minY), maxX: max(maxX, b.maxX), maxY: max(maxY, b.maxY)) }
    }

    /// The lines of text in `raster`, each with its characters left to right, top line first.
    static func find(_ raster: GreyRaster, minCharacterHeight: Double) -> [(box: Box, characters: [Box])] {
        let w = raster.width, h = raster.height
        let radius = max(8, min(w, h) / 40)
        let mean = RasterOps.boxBlur(raster.pixels, w, h, radius: radius, passes: 1)
        let margin = 24
        var lines: [(box: Box, characters: [Box])] = []
        for dark in [true, false] {
            var mask = [UInt8](repeating: 0, count: w * h)
            raster.pixels.withUnsafeBufferPointer { p in
                mean.withUnsafeBufferPointer { m in
                    mask.withUnsafeMutableBufferPointer { out in
                        for i in 0..<(w * h) {
                            let d = Int(m[i]) - Int(p[i])
                            out[i] = (dark ? d > margin : -d > margin) ? 1 : 0
                        }
                    }
                }
            }
            let maxHeight = Double(h) / 3
            let characters = RasterOps.components(mask, w, h, minArea: 8, boundaries: false).compactMap { c -> Box? in
                let b = Box(minX: c.minX, minY: c.minY, maxX: c.maxX, maxY: c.maxY)
                let bh = Double(b.height), bw = Double(b.width)
                guard bh >= minCharacterHeight, bh <= maxHeight, bw <= 3 * bh, bw >= 1 else { return nil }
                let fill = Double(c.area) / (bw * bh)
                guard fill > 0.08, fill < 0.95 else { return nil }
                return b
            }
            lines += chain(characters)
        }
        // A line found in both polarities (a box's outline) keeps the one with more characters.
        lines.sort { $0.characters.count > $1.characters.count }
        var kept: [(box: Box, characters: [Box])] = []
        for l in lines where !kept.contains(where: { overlap($0.box, l.box) > 0.5 }) { kept.append(l) }
        return kept.sorted { $0.box.minY != $1.box.minY ? $0.box.minY < $1.box.minY : $0.box.minX < $1.box.minX }
    }

    /// The share of the smaller box that lies in the other.
    static func overlap(_ a: Box, _ b: Box) -> Double {
        let w = min(a.maxX, b.maxX) - max(a.minX, b.minX), h = min(a.maxY, b.maxY) - max(a.minY, b.minY)
        guard w > 0, h > 0 else { return 0 }
        return Double(w * h) / Double(min(a.width * a.height, b.width * b.height))
    }

    /// Characters chained left to right into lines: the next character overlaps the line's last
    /// one vertically by half the smaller height, is at most twice as tall, and starts within
    /// one character height of it. Lines of fewer than two characters are dropped.
    static func chain(_ characters: [Box]) -> [(box: Box, characters: [Box])] {
        let sorted = characters.sorted { $0.minX < $1.minX }
        var used = [Bool](repeating: false, count: sorted.count)
        var lines: [(box: Box, characters: [Box])] = []
        for i in sorted.indices where !used[i] {
            used[i] = true
            var members = [sorted[i]]
            var last = sorted[i]
            var j = i + 1
            while j < sorted.count {
                let c = sorted[j]
                if c.minX > last.maxX + max(last.height, c.height) { break }
                let v = min(last.maxY, c.maxY) - max(last.minY, c.minY)
                let tall = max(last.height, c.height), short = min(last.height, c.height)
                if !used[j], Double(v) >= 0.5 * Double(short), tall <= 2 * short {
                    used[j] = true
                    members.append(c)
                    last = c
                }
                j += 1
            }
            guard members.count >= 2 else { continue }
            lines.append((members.dropFirst().reduce(members[0]) { $0.union($1) }, members))
        }
        return lines
    }
}
