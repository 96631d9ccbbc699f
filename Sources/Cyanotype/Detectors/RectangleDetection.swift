import Foundation

/// Rectangles (documents, cards, screens): the image in grey, blurred, split at two levels
/// (light regions on dark, and dark on light); each region's convex hull gives the largest
/// quadrilateral on it, kept when the hull is nearly that quadrilateral and the region fills
/// most of it; each side is then moved onto the edge found across it in the picture (subpixel)
/// and the corners are where the fitted sides cross. The most prominent (largest, most
/// quadrilateral) come first.
enum RectangleDetection {
    /// Core Image's default smallest rectangle: a fifth of the image's smaller side.
    static let defaultMinFeatureSize = 0.2

    static func detect(_ image: CIImage, _ context: CIContext, _ o: DetectorOptions) throws(CIDetectorError) -> [CIFeature] {
        let raster = try GreyRaster(image, context, maxSide: o.highAccuracy ? 1024 : 512)
        let quads = find(raster, o)
        return quads.prefix(o.maxFeatureCount ?? 1).map { q in
            CIRectangleFeature(corners: RasterOps.nameCorners(q.map { raster.imagePoint($0.x, $0.y) }))
        }
    }

    /// The quadrilaterals in `raster` (raster corners, y down), most prominent first.
    static func find(_ raster: GreyRaster, _ o: DetectorOptions) -> [[SIMD2<Double>]] {
        let w = raster.width, h = raster.height
        let radius = max(1, min(w, h) / 300)
        let blurred = RasterOps.boxBlur(raster.pixels, w, h, radius: radius)
        let light = RasterOps.boxBlur(raster.pixels, w, h, radius: 1, passes: 1)
        let level = RasterOps.otsu(blurred)
        let sortedLevels = blurred.sorted()
        let low = Int(sortedLevels[sortedLevels.count / 50]), high = Int(sortedLevels[sortedLevels.count * 49 / 50])
        let minSide = (o.minFeatureSize ?? defaultMinFeatureSize) * Double(min(w, h))
        let minArea = max(16, Int(minSide * minSide * 0.5))
        var candidates: [(quad: [SIMD2<Double>], score: Double)] = []
        // Light regions on dark at Otsu's level and halfway to the lightest, dark ones on light
        // likewise: a sheet joined to a light patch of table at one level stands apart at the other.
        for (isLight, threshold) in [(true, level), (true, (level + high) / 2), (false, level), (false, (level + low) / 2)] {
            let mask = blurred.map { (Int($0) > threshold) == isLight ? UInt8(1) : 0 }
            for c in RasterOps.components(mask, w, h, minArea: minArea) {
                let hull = RasterOps.convexHull(c.boundary)
                let hullArea = RasterOps.area(hull)
                guard hullArea > 0, let rough = RasterOps.largestQuadrilateral(in: hull) else { continue }
                // A quadrilateral, not a blob: the hull is (nearly) its four corners, and the
                // region fills most of it (print on a sheet leaves holes).
                let roughArea = RasterOps.area(rough)
                guard roughArea / hullArea > 0.92, Double(c.area) / hullArea > 0.6 else { continue }
                // A region that is the whole picture's background is no rectangle in it.
                if roughArea > 0.97 * Double(w * h) { continue }
                guard let quad = refine(rough, light, w, h) else { continue }
                let sides = (0..<4).map { RasterOps.length(quad[$0] - quad[($0 + 1) % 4]) }
                guard sides.min()! >= minSide else { continue }
                var score = RasterOps.area(quad) * (roughArea / hullArea)
                if let wanted = o.aspectRatio {
                    let ratio = (sides[0] + sides[2]) / max(1e-9, sides[1] + sides[3])
                    let off = min(abs(log(ratio / wanted)), abs(log(1 / ratio / wanted)))
                    guard off < log(1.6) else { continue }
                    score *= 1 - off
                }
                // The same sheet found at two levels counts once, its better score kept.
                let diagonal = RasterOps.length(quad[0] - quad[2])
                if let same = candidates.firstIndex(where: { other in
                    quad.allSatisfy { p in other.quad.contains { RasterOps.length($0 - p) < 0.05 * diagonal } }
                }) {
                    if candidates[same].score < score { candidates[same] = (quad, score) }
                    continue
                }
                candidates.append((quad, score))
            }
        }
        return candidates.sorted { $0.score > $1.score }.map(\.quad)
    }

    /// The rough quadrilateral's sides moved onto the edges in `pixels` (lightly blurred grey):
    /// along each side, the profile across it is read and the edge put where it crosses halfway
    /// between the levels inside and outside; a line is fitted to those points (twice, the far
    /// ones dropped) and the corners are where the lines cross. nil when a side has no edge.
    static func refine(_ rough: [SIMD2<Double>], _ pixels: [UInt8], _ w: Int, _ h: Int) -> [SIMD2<Double>]? {
        let centre = rough.reduce(SIMD2<Double>(0, 0), +) / 4
        var lines: [(point: SIMD2<Double>, direction: SIMD2<Double>)] = []
        for i in 0..<4 {
            let a = rough[i], b = rough[(i + 1) % 4]
            let length = RasterOps.length(b - a)
            guard length > 4 else { return nil }
            let dir = (b - a) / length
            var normal = SIMD2(-dir.y, dir.x)
            if RasterOps.dot(normal, (a + b) / 2 - centre) < 0 { normal = -normal }
            let reach = 6.0
            var points: [SIMD2<Double>] = []
            var t = 0.12 * length
            while t < 0.88 * length {
                let p = a + t * dir
                t += 1.5
                func sample(_ s: Double) -> Double? { bilinear(pixels, w, h, p + s * normal) }
                guard let i0 = sample(-reach), let i1 = sample(-reach + 1), let o0 = sample(reach), let o1 = sample(reach - 1) else { continue }
                let inside = (i0 + i1) / 2, outside = (o0 + o1) / 2
                guard abs(inside - outside) > 12 else { continue }
                let mid = (inside + outside) / 2
                var s = -reach + 1
                var previous = sample(s)! - mid
                while s < reach - 1 {
                    guard let v = sample(s + 0.25) else { break }
                    let here = v - mid
                    if (previous < 0) != (here < 0) {
                        let f = previous / (previous - here)
                        points.append(p + (s + 0.25 * f) * normal)
                        break
                    }
                    previous = here
                    s += 0.25
                }
            }
            guard points.count >= 6, var line = RasterOps.fitLine(points) else { return nil }
            let close = points.filter { abs(RasterOps.dot($0 - line.point, SIMD2(-line.direction.y, line.direction.x))) < 1.5 }
            if close.count >= 6, let better = RasterOps.fitLine(close) { line = better }
            lines.append(line)
        }
        var corners: [SIMD2<Double>] = []
        for i in 0..<4 {
            guard let p = RasterOps.intersect(lines[(i + 3) % 4], lines[i]) else { return nil }
            // A crossing far from the rough corner means the sides were not straight.
            guard RasterOps.length(p - rough[i]) < 0.2 * RasterOps.length(rough[(i + 1) % 4] - rough[i]) + 4 else { return nil }
            corners.append(p)
        }
        return corners
    }

    /// `pixels` at raster point `p` (pixel centres at half-integers), bilinear; nil outside.
    @inline(__always) static func bilinear(_ pixels: [UInt8], _ w: Int, _ h: Int, _ p: SIMD2<Double>) -> Double? {
        let x = p.x - 0.5, y = p.y - 0.5
        guard x >= 0, y >= 0, x < Double(w - 1), y < Double(h - 1) else { return nil }
        let x0 = Int(x), y0 = Int(y)
        let fx = x - Double(x0), fy = y - Double(y0)
        return pixels.withUnsafeBufferPointer { px in
            let r0 = px.baseAddress! + y0 * w, r1 = r0 + w
            let top = Double(r0[x0]) * (1 - fx) + Double(r0[x0 + 1]) * fx
            let bottom = Double(r1[x0]) * (1 - fx) + Double(r1[x0 + 1]) * fx
            return top * (1 - fy) + bottom * fy
        }
    }
}
