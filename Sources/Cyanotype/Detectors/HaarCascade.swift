import Foundation

/// A Viola-Jones boosted cascade of Haar features, read from OpenCV's XML format (Debian's
/// `opencv-data`: `haarcascade_frontalface_default.xml`, `haarcascade_eye.xml`), evaluated as
/// OpenCV's `CascadeClassifier` evaluates it: the image scaled down step by step, a window of
/// the cascade's size slid over each scale, each window's features normalised by its standard
/// deviation, the stages' sums compared with their thresholds, and the hits grouped.
struct HaarCascade: Sendable {
    /// The window the cascade was trained on.
    var windowWidth: Int
    var windowHeight: Int
    /// Per stage: its threshold and the range of its weak classifiers in `trees`.
    var stages: [(threshold: Float, first: Int, count: Int)]
    /// Per weak classifier: the range of its nodes in `nodes` and of its leaves in `leaves`.
    var trees: [(firstNode: Int, firstLeaf: Int)]
    /// Nodes: left, right (<= 0: a leaf, -index), feature, threshold.
    var nodes: [(left: Int32, right: Int32, feature: Int32, threshold: Float)]
    var leaves: [Float]
    /// Per feature, up to three rectangles (x, y, width, height in the window) and weights.
    var features: [[(x: Int, y: Int, w: Int, h: Int, weight: Float)]]
    /// Per feature, whether its rectangles are turned 45 degrees (OpenCV's tilted features,
    /// summed over the tilted integral image).
    var tilted: [Bool]
    /// Whether any feature is tilted.
    var hasTilted: Bool { tilted.contains(true) }

    /// Reads the cascade at `path`; `CIDetectorError.modelMissing` or `.modelUnreadable`.
    init(contentsOf path: String) throws(CIDetectorError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .modelMissing(path: path) }
        let text = [UInt8](data)
        func fail(_ reason: String) -> CIDetectorError { .modelUnreadable(path: path, reason: reason) }
        guard let type = Self.firstValue(text, "featureType"), type == "HAAR" else { throw fail("not a Haar cascade") }
        guard let w = Self.firstValue(text, "width").flatMap({ Int($0) }), let h = Self.firstValue(text, "height").flatMap({ Int($0) }),
            w > 0, h > 0, w <= 256, h <= 256
        else { throw fail("no window size") }
        windowWidth = w
        windowHeight = h
        stages = []
        trees = []
        nodes = []
        leaves = []
        features = []
        tilted = []
        guard let stagesRange = Self.section(text, "stages", from: 0), let featuresRange = Self.section(text, "features", from: stagesRange.upperBound) else {
            throw fail("no stages or features")
        }
        // Stages: the tags of interest in document order.
        var i = stagesRange.lowerBound
        var pendingCount = 0
        while let (tag, value, end) = Self.nextTag(text, in: i..<stagesRange.upperBound, ["maxWeakCount", "stageThreshold", "internalNodes", "leafValues"]) {
            i = end
            switch tag {
            case "maxWeakCount":
                pendingCount = Int(value) ?? 0
            case "stageThreshold":
                guard let t = Float(value) else { throw fail("stage threshold \(value)") }
                // OpenCV lowers each stage's threshold by 1e-5 (THRESHOLD_EPS).
                stages.append((t - 1e-5, trees.count, pendingCount))
            case "internalNodes":
                let n = value.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).compactMap { Double($0) }
                guard n.count % 4 == 0, !n.isEmpty else { throw fail("internal nodes \(value.prefix(60))") }
                trees.append((nodes.count, leaves.count))
                for k in stride(from: 0, to: n.count, by: 4) {
                    nodes.append((Int32(n[k]), Int32(n[k + 1]), Int32(n[k + 2]), Float(n[k + 3])))
                }
            default:  // leafValues
                leaves += value.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).compactMap { Float($0) }
            }
        }
        // Features: each <rects> block, then an optional <tilted>.
        i = featuresRange.lowerBound
        while let rects = Self.section(text, "rects", from: i), rects.upperBound <= featuresRange.upperBound {
            var feature: [(Int, Int, Int, Int, Float)] = []
            var j = rects.lowerBound
            while let (_, value, end) = Self.nextTag(text, in: j..<rects.upperBound, ["_"]) {
                j = end
                let n = value.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).compactMap { Double($0) }
                guard n.count == 5 else { throw fail("feature rectangle \(value)") }
                let r = (Int(n[0]), Int(n[1]), Int(n[2]), Int(n[3]), Float(n[4]))
                feature.append(r)
            }
            i = rects.upperBound
            let isTilted =
                Self.nextTag(text, in: i..<featuresRange.upperBound, ["tilted", "rects"]).map {
                    $0.tag == "tilted" && $0.value.trimmingCharacters(in: .whitespaces) == "1"
                } ?? false
            for r in feature {
                // A tilted rectangle runs from (x, y) right-down by w and left-down by h.
                let inside =
                    isTilted
                    ? r.0 - r.3 >= 0 && r.0 + r.2 <= w && r.1 >= 0 && r.1 + r.2 + r.3 <= h && r.2 >= 0 && r.3 >= 0
                    : r.0 >= 0 && r.1 >= 0 && r.2 >= 0 && r.3 >= 0 && r.0 + r.2 <= w && r.1 + r.3 <= h
                guard inside else { throw fail("feature rectangle outside the window") }
            }
            tilted.append(isTilted)
            guard (1...3).contains(feature.count) else { throw fail("a feature of \(feature.count) rectangles") }
            features.append(feature.map { (x: $0.0, y: $0.1, w: $0.2, h: $0.3, weight: $0.4) })
        }
        // Every index in range.
        guard !stages.isEmpty, stages.allSatisfy({ $0.first + $0.count <= trees.count }),
            nodes.allSatisfy({ Int($0.feature) < features.count && $0.feature >= 0 }),
            leaves.count >= trees.count * 2
        else { throw fail("inconsistent stages, nodes or features") }
    }

    /// The text of the first `<tag>` in `text`.
    static func firstValue(_ text: [UInt8], _ tag: String) -> String? {
        nextTag(text, in: 0..<text.count, [tag])?.value.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The byte range between `<tag>` and its `</tag>` at or after `from`.
    static func section(_ text: [UInt8], _ tag: String, from: Int) -> Range<Int>? {
        guard let open = find(text, Array("<\(tag)>".utf8), from: from), let close = find(text, Array("</\(tag)>".utf8), from: open.upperBound) else { return nil }
        return open.upperBound..<close.lowerBound
    }

    /// The first of `tags` opened in `range`: its name, its text (up to its closing tag) and
    /// where the closing tag ends.
    static func nextTag(_ text: [UInt8], in range: Range<Int>, _ tags: [String]) -> (tag: String, value: String, end: Int)? {
        var i = range.lowerBound
        while i < range.upperBound {
            guard text[i] == UInt8(ascii: "<") else { i += 1; continue }
            for tag in tags {
                let open = Array("<\(tag)>".utf8)
                if i + open.count <= range.upperBound, Array(text[i..<(i + open.count)]) == open {
                    let close = Array("</\(tag)>".utf8)
                    guard let c = find(text, close, from: i + open.count), c.upperBound <= range.upperBound else { return nil }
                    return (tag, String(decoding: text[(i + open.count)..<c.lowerBound], as: UTF8.self), c.upperBound)
                }
            }
            i += 1
        }
        return nil
    }

    /// Where `needle` first occurs in `text` at or after `from`.
    static func find(_ text: [UInt8], _ needle: [UInt8], from: Int) -> Range<Int>? {
        guard !needle.isEmpty, text.count >= needle.count else { return nil }
        var i = from
        let last = text.count - needle.count
        while i <= last {
            if text[i] == needle[0] {
                var k = 1
                while k < needle.count && text[i + k] == needle[k] { k += 1 }
                if k == needle.count { return i..<(i + needle.count) }
            }
            i += 1
        }
        return nil
    }

    /// Every window of `raster` (pixels, `width` x `height`) the cascade accepts, in raster
    /// pixels, before grouping. Windows from `minSize` to `maxSize` pixels wide, each scale
    /// `scaleFactor` times the last.
    func detect(_ pixels: [UInt8], _ width: Int, _ height: Int, scaleFactor: Double, minSize: Int, maxSize: Int) -> [CGRect] {
        var hits: [CGRect] = []
        var factor = 1.0
        while true {
            let winW = Int((Double(windowWidth) * factor).rounded()), winH = Int((Double(windowHeight) * factor).rounded())
            if winW > min(maxSize, width) || winH > height { break }
            defer { factor *= scaleFactor }
            if winW < minSize { continue }
            let sw = Int((Double(width) / factor).rounded()), sh = Int((Double(height) / factor).rounded())
            guard sw > windowWidth, sh > windowHeight else { break }
            let scaled = factor == 1 ? pixels : Self.resize(pixels, width, height, sw, sh)
            let step = factor > 2 ? 1 : 2
            for (x, y) in scan(scaled, sw, sh, step: step) {
                hits.append(CGRect(x: (Double(x) * factor).rounded(), y: (Double(y) * factor).rounded(), width: Double(winW), height: Double(winH)))
            }
        }
        return hits
    }

    /// `pixels` resized to `dw` x `dh` by bilinear interpolation (pixel centres aligned).
    static func resize(_ pixels: [UInt8], _ w: Int, _ h: Int, _ dw: Int, _ dh: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: dw * dh)
        let sx = Double(w) / Double(dw), sy = Double(h) / Double(dh)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<dh {
                    let fy = max(0, (Double(y) + 0.5) * sy - 0.5)
                    let y0 = min(Int(fy), h - 1), y1 = min(y0 + 1, h - 1)
                    let ty = fy - Double(y0)
                    let r0 = src.baseAddress! + y0 * w, r1 = src.baseAddress! + y1 * w
                    let o = dst.baseAddress! + y * dw
                    for x in 0..<dw {
                        let fx = max(0, (Double(x) + 0.5) * sx - 0.5)
                        let x0 = min(Int(fx), w - 1), x1 = min(x0 + 1, w - 1)
                        let tx = fx - Double(x0)
                        let top = Double(r0[x0]) * (1 - tx) + Double(r0[x1]) * tx
                        let bottom = Double(r1[x0]) * (1 - tx) + Double(r1[x1]) * tx
                        o[x] = UInt8(min(255, max(0, (top * (1 - ty) + bottom * ty).rounded())))
                    }
                }
            }
        }
        return out
    }

    /// The top-left corners of the windows of one scale the cascade accepts.
    func scan(_ pixels: [UInt8], _ w: Int, _ h: Int, step: Int) -> [(Int, Int)] {
        let stride = w + 1
        // Integral image and integral of squares, (w + 1) x (h + 1).
        var sum = [Int32](repeating: 0, count: stride * (h + 1))
        var sq = [Double](repeating: 0, count: stride * (h + 1))
        pixels.withUnsafeBufferPointer { p in
            sum.withUnsafeMutableBufferPointer { s in
                sq.withUnsafeMutableBufferPointer { q in
                    for y in 0..<h {
                        var rowSum: Int32 = 0
                        var rowSq = 0.0
                        let src = p.baseAddress! + y * w
                        let above = (y) * stride, here = (y + 1) * stride
                        for x in 0..<w {
                            let v = Int32(src[x])
                            rowSum += v
                            rowSq += Double(v * v)
                            s[here + x + 1] = s[above + x + 1] + rowSum
                            q[here + x + 1] = q[above + x + 1] + rowSq
                        }
                    }
                }
            }
        }
        // The tilted integral (OpenCV's): at (X, Y), the sum of the pixels above Y within the
        // 45-degree triangle whose apex is (X - 1, Y - 1); columns run `margin` past both sides
        // so tilted rectangles may reach left of the window.
        let margin = h + 2
        let tiltStride = w + 1 + 2 * margin
        var tiltedSum = [Int32](repeating: 0, count: hasTilted ? tiltStride * (h + 1) : 0)
        if hasTilted {
            pixels.withUnsafeBufferPointer { p in
                tiltedSum.withUnsafeMutableBufferPointer { t in
                    func pixel(_ x: Int, _ y: Int) -> Int32 { x >= 0 && x < w && y >= 0 && y < h ? Int32(p[y * w + x]) : 0 }
                    for y in 1...h {
                        for column in 1..<(tiltStride - 1) {
                            let x = column - margin
                            var v = pixel(x - 1, y - 1) + pixel(x - 1, y - 2)
                            if y >= 2 {
                                v += t[(y - 1) * tiltStride + column - 1] + t[(y - 1) * tiltStride + column + 1] - t[(y - 2) * tiltStride + column]
                            }
                            t[y * tiltStride + column] = v
                        }
                    }
                }
            }
        }
        // Per rectangle: its four corner offsets from the window's (in the tilted integral
        // for a tilted feature) and its weight.
        var offsets: [(Int, Int, Int, Int, Float)] = []
        var featureFirst: [Int] = []
        var featureCount: [Int] = []
        for (f, turned) in zip(features, tilted) {
            featureFirst.append(offsets.count)
            featureCount.append(f.count)
            for r in f {
                if turned {
                    let s = tiltStride
                    offsets.append((r.y * s + r.x, (r.y + r.h) * s + r.x - r.h, (r.y + r.w) * s + r.x + r.w, (r.y + r.w + r.h) * s + r.x + r.w - r.h, r.weight))
                } else {
                    offsets.append((r.y * stride + r.x, r.y * stride + r.x + r.w, (r.y + r.h) * stride + r.x, (r.y + r.h) * stride + r.x + r.w, r.weight))
                }
            }
        }
        let featureTilted = tilted
        // OpenCV's normalising rectangle: the window less a one-pixel border.
        let nx = 1, ny = 1, nw = windowWidth - 2, nh = windowHeight - 2
        let nArea = Double(nw * nh)
        let n0 = ny * stride + nx, n1 = ny * stride + nx + nw, n2 = (ny + nh) * stride + nx, n3 = (ny + nh) * stride + nx + nw
        var found: [(Int, Int)] = []
        sum.withUnsafeBufferPointer { s in
            tiltedSum.withUnsafeBufferPointer { ts in
                sq.withUnsafeBufferPointer { q in
                    offsets.withUnsafeBufferPointer { off in
                        nodes.withUnsafeBufferPointer { nd in
                            leaves.withUnsafeBufferPointer { lv in
                                var y = 0
                                while y < h - windowHeight {
                                    var x = 0
                                    while x < w - windowWidth {
                                        let base = y * stride + x
                                        let tiltBase = y * tiltStride + x + margin
                                        let vs = Double(s[base + n0] - s[base + n1] - s[base + n2] + s[base + n3])
                                        let vq = q[base + n0] - q[base + n1] - q[base + n2] + q[base + n3]
                                        var nf = nArea * vq - vs * vs
                                        nf = nf > 0 ? nf.squareRoot() : 1
                                        var accepted = true
                                        for stage in stages {
                                            var total: Float = 0
                                            for t in stage.first..<(stage.first + stage.count) {
                                                let tree = trees[t]
                                                var idx = 0
                                                while true {
                                                    let node = nd[tree.firstNode + idx]
                                                    let fi = Int(node.feature)
                                                    var value: Float = 0
                                                    let first = featureFirst[fi]
                                                    if featureTilted[fi] {
                                                        for k in first..<(first + featureCount[fi]) {
                                                            let o = off[k]
                                                            value += o.4 * Float(ts[tiltBase + o.0] - ts[tiltBase + o.1] - ts[tiltBase + o.2] + ts[tiltBase + o.3])
                                                        }
                                                    } else {
                                                        for k in first..<(first + featureCount[fi]) {
                                                            let o = off[k]
                                                            value += o.4 * Float(s[base + o.0] - s[base + o.1] - s[base + o.2] + s[base + o.3])
                                                        }
                                                    }
                                                    let next = Double(value) < Double(node.threshold) * nf ? node.left : node.right
                                                    if next <= 0 {
                                                        total += lv[tree.firstLeaf + Int(-next)]
                                                        break
                                                    }
                                                    idx = Int(next)
                                                }
                                            }
                                            if total < stage.threshold {
                                                accepted = false
                                                break
                                            }
                                        }
                                        if accepted { found.append((x, y)) }
                                        x += step
                                    }
                                    y += step
                                }
                            }
                        }
                    }
                }
            }
        }
        return found
    }

    /// OpenCV's `groupRectangles`: hits joined when their sides lie within `eps` of their
    /// sizes, each group averaged and kept when it has more than `minNeighbors` members; a
    /// group inside a stronger one is dropped. Each result with its member count.
    static func group(_ rects: [CGRect], minNeighbors: Int, eps: Double = 0.2) -> [(rect: CGRect, count: Int)] {
        let n = rects.count
        var parent = Array(0..<n)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        func similar(_ a: CGRect, _ b: CGRect) -> Bool {
            let delta = eps * (min(a.width, b.width) + min(a.height, b.height)) * 0.5
            return abs(a.minX - b.minX) <= delta && abs(a.minY - b.minY) <= delta && abs(a.maxX - b.maxX) <= delta && abs(a.maxY - b.maxY) <= delta
        }
        for i in 0..<n {
            for j in (i + 1)..<max(i + 1, n) where similar(rects[i], rects[j]) {
                let a = root(i), b = root(j)
                if a != b { parent[a] = b }
            }
        }
        var sums: [Int: (x: Double, y: Double, w: Double, h: Double, n: Int)] = [:]
        for i in 0..<n {
            let r = root(i)
            var s = sums[r] ?? (0, 0, 0, 0, 0)
            s.x += rects[i].minX
            s.y += rects[i].minY
            s.w += rects[i].width
            s.h += rects[i].height
            s.n += 1
            sums[r] = s
        }
        var groups: [(rect: CGRect, count: Int)] = sums.values.filter { $0.n > minNeighbors }.map { s in
            let k = Double(s.n)
            return (CGRect(x: (s.x / k).rounded(), y: (s.y / k).rounded(), width: (s.w / k).rounded(), height: (s.h / k).rounded()), s.n)
        }
        groups.sort { $0.count > $1.count || ($0.count == $1.count && $0.rect.minX < $1.rect.minX) }
        return groups.enumerated().filter { (i, g) in
            !groups.enumerated().contains { (j, other) in
                guard j != i else { return false }
                let dx = (other.rect.width * eps).rounded(), dy = (other.rect.height * eps).rounded()
                let inside =
                    g.rect.minX >= other.rect.minX - dx && g.rect.minY >= other.rect.minY - dy && g.rect.maxX <= other.rect.maxX + dx
                    && g.rect.maxY <= other.rect.maxY + dy
                return inside && (other.count > max(3, g.count) || g.count < 3)
            }
        }.map(\.1)
    }
}
