import Foundation

// Row loops shared by the detectors: blur, threshold, connected components, hulls, line fits.
// Everything works on raster pixels (x right, y down), rows through unsafe buffers.

enum RasterOps {
    /// The length of `v`.
    @inline(__always) static func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
    /// The dot product of `a` and `b`.
    @inline(__always) static func dot(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { (a * b).sum() }

    /// `pixels` (width x height) box-blurred `passes` times with radius `r` in each direction
    /// (edges clamped); three passes approach a Gaussian of sigma ~ r.
    static func boxBlur(_ pixels: [UInt8], _ width: Int, _ height: Int, radius r: Int, passes: Int = 2) -> [UInt8] {
        guard r > 0, width > 0, height > 0 else { return pixels }
        var a = pixels
        var b = [UInt8](repeating: 0, count: pixels.count)
        let span = 2 * r + 1
        for _ in 0..<passes {
            // Horizontal: a -> b.
            a.withUnsafeBufferPointer { src in
                b.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<height {
                        let row = src.baseAddress! + y * width, out = dst.baseAddress! + y * width
                        var sum = 0
                        for i in -r...r { sum += Int(row[min(max(i, 0), width - 1)]) }
                        for x in 0..<width {
                            out[x] = UInt8((sum + span / 2) / span)
                            sum += Int(row[min(x + r + 1, width - 1)]) - Int(row[max(x - r, 0)])
                        }
                    }
                }
            }
            // Vertical: b -> a, a column of sums per row.
            b.withUnsafeBufferPointer { src in
                a.withUnsafeMutableBufferPointer { dst in
                    var sums = [Int](repeating: 0, count: width)
                    sums.withUnsafeMutableBufferPointer { s in
                        for i in -r...r {
                            let row = src.baseAddress! + min(max(i, 0), height - 1) * width
                            for x in 0..<width { s[x] += Int(row[x]) }
                        }
                        for y in 0..<height {
                            let out = dst.baseAddress! + y * width
                            let add = src.baseAddress! + min(y + r + 1, height - 1) * width
                            let sub = src.baseAddress! + max(y - r, 0) * width
                            for x in 0..<width {
                                out[x] = UInt8((s[x] + span / 2) / span)
                                s[x] += Int(add[x]) - Int(sub[x])
                            }
                        }
                    }
                }
            }
        }
        return a
    }

    /// Otsu's threshold of `pixels`: the level splitting them into two classes of greatest
    /// between-class variance (pixels > level are the light class).
    static func otsu(_ pixels: [UInt8]) -> Int {
        var hist = [Int](repeating: 0, count: 256)
        pixels.withUnsafeBufferPointer { p in for v in p { hist[Int(v)] += 1 } }
        let total = Double(pixels.count)
        let sumAll = (0..<256).reduce(0.0) { $0 + Double($1 * hist[$1]) }
        var sumB = 0.0, weightB = 0.0, best = 0.0, level = 127
        for t in 0..<256 {
            weightB += Double(hist[t])
            if weightB == 0 { continue }
            let weightF = total - weightB
            if weightF == 0 { break }
            sumB += Double(t * hist[t])
            let mB = sumB / weightB, mF = (sumAll - sumB) / weightF
            let between = weightB * weightF * (mB - mF) * (mB - mF)
            if between > best { best = between; level = t }
        }
        return level
    }

    /// A connected region of a mask.
    struct Component {
        /// Pixel count.
        var area: Int
        /// Pixels on the region's edge (a 4-neighbour outside it), as pixel centres.
        var boundary: [SIMD2<Double>]
        /// Whether the region touches the raster's edge.
        var touchesEdge: Bool
        /// The bounding box: first and past-the-end columns and rows.
        var minX = 0, minY = 0, maxX = 0, maxY = 0
    }

    /// The 4-connected regions of `mask` (nonzero = in) of at least `minArea` pixels.
    static func components(_ mask: [UInt8], _ width: Int, _ height: Int, minArea: Int, boundaries: Bool = true) -> [Component] {
        var labels = [Int32](repeating: -1, count: mask.count)
        var result: [Component] = []
        var stack: [Int] = []
        var members: [Int] = []
        mask.withUnsafeBufferPointer { m in
            labels.withUnsafeMutableBufferPointer { l in
                for start in 0..<m.count where m[start] != 0 && l[start] < 0 {
                    let label = Int32(result.count)
                    l[start] = label
                    stack.append(start)
                    members.removeAll(keepingCapacity: true)
                    var touches = false
                    var x0 = width, y0 = height, x1 = 0, y1 = 0
                    while let i = stack.popLast() {
                        members.append(i)
                        let x = i % width, y = i / width
                        x0 = min(x0, x)
                        y0 = min(y0, y)
                        x1 = max(x1, x + 1)
                        y1 = max(y1, y + 1)
                        if x == 0 || y == 0 || x == width - 1 || y == height - 1 { touches = true }
                        if x > 0, m[i - 1] != 0, l[i - 1] < 0 { l[i - 1] = label; stack.append(i - 1) }
                        if x < width - 1, m[i + 1] != 0, l[i + 1] < 0 { l[i + 1] = label; stack.append(i + 1) }
                        if y > 0, m[i - width] != 0, l[i - width] < 0 { l[i - width] = label; stack.append(i - width) }
                        if y < height - 1, m[i + width] != 0, l[i + width] < 0 { l[i + width] = label; stack.append(i + width) }
                    }
                    if members.count < minArea || !boundaries {
                        result.append(Component(area: members.count, boundary: [], touchesEdge: touches, minX: x0, minY: y0, maxX: x1, maxY: y1))
                        continue
                    }
                    var edge: [SIMD2<Double>] = []
                    for i in members {
                        let x = i % width, y = i / width
                        let inside =
                            x > 0 && x < width - 1 && y > 0 && y < height - 1 && m[i - 1] != 0 && m[i + 1] != 0 && m[i - width] != 0
                            && m[i + width] != 0
                        if !inside { edge.append(SIMD2(Double(x) + 0.5, Double(y) + 0.5)) }
                    }
                    result.append(Component(area: members.count, boundary: edge, touchesEdge: touches, minX: x0, minY: y0, maxX: x1, maxY: y1))
                }
            }
        }
        return result.filter { $0.area >= minArea }
    }

    /// The convex hull of `points` (Andrew's monotone chain), counter-clockwise in raster
    /// coordinates seen with y up (clockwise on screen).
    static func convexHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let p = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        guard p.count > 2 else { return p }
        func cross(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [SIMD2<Double>] = []
        for q in p {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], q) <= 0 { lower.removeLast() }
            lower.append(q)
        }
        var upper: [SIMD2<Double>] = []
        for q in p.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], q) <= 0 { upper.removeLast() }
            upper.append(q)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// The area of the polygon `p` (absolute).
    static func area(_ p: [SIMD2<Double>]) -> Double {
        var s = 0.0
        for i in p.indices {
            let a = p[i], b = p[(i + 1) % p.count]
            s += a.x * b.y - b.x * a.y
        }
        return abs(s) / 2
    }

    /// The largest-area quadrilateral with corners among `hull`'s vertices (in hull order).
    static func largestQuadrilateral(in hull: [SIMD2<Double>]) -> [SIMD2<Double>]? {
        var h = hull
        if h.count > 96 {
            let step = Double(h.count) / 96
            h = (0..<96).map { hull[Int(Double($0) * step)] }
        }
        let n = h.count
        guard n >= 4 else { return nil }
        func tri(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Double {
            abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)) / 2
        }
        var best = -1.0
        var corners = [0, 1, 2, 3]
        for i in 0..<n {
            for k in (i + 2)..<(i + n - 1) {
                let kk = k % n
                var bestJ = -1.0, jBest = i
                for j in (i + 1)..<k {
                    let t = tri(h[i], h[j % n], h[kk])
                    if t > bestJ { bestJ = t; jBest = j % n }
                }
                var bestL = -1.0, lBest = kk
                for l in (k + 1)..<(i + n) {
                    let t = tri(h[i], h[kk], h[l % n])
                    if t > bestL { bestL = t; lBest = l % n }
                }
                if bestJ + bestL > best {
                    best = bestJ + bestL
                    corners = [i, jBest, kk, lBest]
                }
            }
        }
        return corners.map { h[$0] }
    }

    /// The line through `points` by total least squares: a point on it and its unit direction.
    static func fitLine(_ points: [SIMD2<Double>]) -> (point: SIMD2<Double>, direction: SIMD2<Double>)? {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let mean = points.reduce(SIMD2<Double>(0, 0), +) / n
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for p in points {
            let d = p - mean
            sxx += d.x * d.x
            sxy += d.x * d.y
            syy += d.y * d.y
        }
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        return (mean, SIMD2(cos(angle), sin(angle)))
    }

    /// Where two lines (point, direction) cross; nil when nearly parallel.
    static func intersect(_ a: (point: SIMD2<Double>, direction: SIMD2<Double>), _ b: (point: SIMD2<Double>, direction: SIMD2<Double>)) -> SIMD2<
        Double
    >? {
        let d = a.direction.x * b.direction.y - a.direction.y * b.direction.x
        guard abs(d) > 1e-6 else { return nil }
        let w = b.point - a.point
        let t = (w.x * b.direction.y - w.y * b.direction.x) / d
        return a.point + t * a.direction
    }

    /// Four corners (any order, y down) named by their place in the picture, seen with y up:
    /// counter-clockwise from the one nearest the upper-left direction.
    static func nameCorners(_ corners: [CGPoint]) -> Quadrilateral {
        let cx = corners.map(\.x).reduce(0, +) / 4, cy = corners.map(\.y).reduce(0, +) / 4
        let byAngle = corners.sorted { atan2($0.y - cy, $0.x - cx) < atan2($1.y - cy, $1.x - cx) }
        // Counter-clockwise (y up) from -pi: bottom-left, bottom-right, top-right, top-left for
        // an upright box; pick the rotation whose first point lies nearest 135 degrees.
        func gap(_ p: CGPoint) -> Double {
            let a = atan2(p.y - cy, p.x - cx) - 3 * .pi / 4
            return abs(atan2(sin(a), cos(a)))
        }
        let first = byAngle.indices.min { gap(byAngle[$0]) < gap(byAngle[$1]) }!
        let tl = byAngle[first], tr = byAngle[(first + 3) % 4], br = byAngle[(first + 2) % 4], bl = byAngle[(first + 1) % 4]
        return Quadrilateral(topLeft: tl, topRight: tr, bottomLeft: bl, bottomRight: br)
    }
}
