import Foundation

/// Text regions: the image in grey, each pixel compared with its neighbourhood's mean (ink is
/// darker, or lighter, than its surroundings by a margin), the ink's connected components kept
/// when they are shaped like characters, and characters of like height on a shared baseline
/// with gaps under their height chained into lines (specks under 0.6 of the line's median
/// height dropped). A region of one character is not text.
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
        /// How far the ink's mean lies from the rest of the box's (grey levels).
        var contrast = 0.0
        var width: Int { maxX - minX }
        var height: Int { maxY - minY }
        func union(_ b: Box) -> Box { Box(minX: min(minX, b.minX), minY: min(minY, b.minY), maxX: max(maxX, b.maxX), maxY: max(maxY, b.maxY)) }
    }

    /// The lines of text in `raster`, each with its characters left to right, top line first.
    static func find(_ raster: GreyRaster, minCharacterHeight: Double) -> [(box: Box, characters: [Box])] {
        let w = raster.width, h = raster.height
        let radius = max(8, min(w, h) / 40)
        // Noise off first (a 3 x 3 box), then each pixel against its neighbourhood's mean.
        let smooth = RasterOps.boxBlur(raster.pixels, w, h, radius: 1, passes: 1)
        let mean = RasterOps.boxBlur(smooth, w, h, radius: radius, passes: 1)
        let margin = 24
        var lines: [(box: Box, characters: [Box])] = []
        for dark in [true, false] {
            var mask = [UInt8](repeating: 0, count: w * h)
            smooth.withUnsafeBufferPointer { p in
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
                // The ink proper: the pixels of the box past halfway between its darkest and
                // lightest (texture of the background that touched the stroke falls away).
                let loose = Box(minX: c.minX, minY: c.minY, maxX: c.maxX, maxY: c.maxY)
                guard var b = tighten(loose, smooth, w, dark: dark) else { return nil }
                b.contrast = contrast(loose, mask, smooth, w)
                let bh = Double(b.height), bw = Double(b.width)
                guard bh >= minCharacterHeight, bh <= maxHeight, bw <= 3 * bh, bw >= 1 else { return nil }
                let fill = Double(c.area) / (Double(c.maxX - c.minX) * Double(c.maxY - c.minY))
                // Solid blobs are no characters, but for bars (I, l, 1).
                guard fill > 0.08, fill < 0.95 || bh >= 2.5 * bw else { return nil }
                return b
            }
            lines += chain(characters)
        }
        // Comparing with the local mean rings dark ink with a light halo (and light ink with a
        // dark one), which the other polarity finds as a line too: where lines overlap, the one
        // whose ink stands out more from the rest of its boxes is the text.
        func strength(_ l: (box: Box, characters: [Box])) -> Double { l.characters.map(\.contrast).reduce(0, +) / Double(l.characters.count) }
        lines.sort { strength($0) > strength($1) }
        var kept: [(box: Box, characters: [Box])] = []
        for l in lines where !kept.contains(where: { overlap($0.box, l.box) > 0.5 }) { kept.append(l) }
        return kept.sorted { $0.box.minY != $1.box.minY ? $0.box.minY < $1.box.minY : $0.box.minX < $1.box.minX }
    }

    /// The box around the pixels of `b` in `pixels` past halfway from its lightest to its
    /// darkest (`dark`; the reverse for light ink); nil when the box has no contrast.
    static func tighten(_ b: Box, _ pixels: [UInt8], _ w: Int, dark: Bool) -> Box? {
        pixels.withUnsafeBufferPointer { p -> Box? in
            var lo = 255, hi = 0
            for y in b.minY..<b.maxY {
                let row = p.baseAddress! + y * w
                for x in b.minX..<b.maxX {
                    lo = min(lo, Int(row[x]))
                    hi = max(hi, Int(row[x]))
                }
            }
            guard hi - lo > 24 else { return nil }
            let mid = (lo + hi) / 2
            var t = Box(minX: b.maxX, minY: b.maxY, maxX: b.minX, maxY: b.minY)
            for y in b.minY..<b.maxY {
                let row = p.baseAddress! + y * w
                for x in b.minX..<b.maxX where dark ? Int(row[x]) < mid : Int(row[x]) > mid {
                    t.minX = min(t.minX, x)
                    t.maxX = max(t.maxX, x + 1)
                    t.minY = min(t.minY, y)
                    t.maxY = max(t.maxY, y + 1)
                }
            }
            return t.maxX > t.minX ? t : nil
        }
    }

    /// The difference between the mean of the pixels of `b` the mask marks and of those it
    /// does not.
    static func contrast(_ b: Box, _ mask: [UInt8], _ pixels: [UInt8], _ w: Int) -> Double {
        var inkSum = 0, inkCount = 0, restSum = 0, restCount = 0
        mask.withUnsafeBufferPointer { m in
            pixels.withUnsafeBufferPointer { p in
                for y in b.minY..<b.maxY {
                    for x in b.minX..<b.maxX {
                        let i = y * w + x
                        if m[i] != 0 { inkSum += Int(p[i]); inkCount += 1 } else { restSum += Int(p[i]); restCount += 1 }
                    }
                }
            }
        }
        guard inkCount > 0, restCount > 0 else { return 0 }
        return abs(Double(inkSum) / Double(inkCount) - Double(restSum) / Double(restCount))
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
            // Specks chained in (noise, punctuation) are not characters: under 0.6 of the median height.
            let median = members.map(\.height).sorted()[members.count / 2]
            members = members.filter { Double($0.height) >= 0.6 * Double(median) }
            guard members.count >= 2 else { continue }
            lines.append((members.dropFirst().reduce(members[0]) { $0.union($1) }, members))
        }
        return lines
    }
}
