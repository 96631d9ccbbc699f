import Foundation

/// Rectangles (documents, cards, screens): the image in grey, blurred, split at Otsu's level
/// (light regions on dark, and dark on light); each region's convex hull gives the
/// largest quadrilateral on it, kept when the region fills it (a quadrilateral, not a blob);
/// each side is then refitted to the region's edge pixels along it and the corners are where
/// the fitted lines cross. The most prominent (largest, best filled) come first.
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
        let level = RasterOps.otsu(blurred)
        let minSide = (o.minFeatureSize ?? defaultMinFeatureSize) * Double(min(w, h))
        let minArea = max(16, Int(minSide * minSide * 0.5))
        var candidates: [(quad: [SIMD2<Double>], score: Double)] = []
        for light in [true, false] {
            let mask = blurred.map { (Int($0) > level) == light ? UInt8(1) : 0 }
            for c in RasterOps.components(mask, w, h, minArea: minArea) {
                guard let quad = fit(c, w, h) else { continue }
                let quadArea = RasterOps.area(quad)
                // A region that is the whole picture's background is no rectangle in it.
                if quadArea > 0.97 * Double(w * h) { continue }
                let fill = Double(c.area) / quadArea
                guard fill > 0.85, fill < 1.15 else { continue }
                let sides = (0..<4).map { RasterOps.length(quad[$0] - quad[($0 + 1) % 4]) }
                guard sides.min()! >= minSide else { continue }
                var score = quadArea * (1 - abs(1 - fill))
                if let wanted = o.aspectRatio {
                    let ratio = (sides[0] + sides[2]) / max(1e-9, sides[1] + sides[3])
                    let off = min(abs(log(ratio / wanted)), abs(log(1 / ratio / wanted)))
                    guard off < log(1.6) else { continue }
                    score *= 1 - off
                }
                candidates.append((quad, score))
            }
        }
        return candidates.sorted { $0.score > $1.score }.map(\.quad)
    }

    /// The region's quadrilateral: the largest one on its hull, then each side refitted to the
    /// edge pixels near it; nil when the sides do not cross as a quadrilateral's do.
    static func fit(_ c: RasterOps.Component, _ w: Int, _ h: Int) -> [SIMD2<Double>]? {
        let hull = RasterOps.convexHull(c.boundary)
        guard let rough = RasterOps.largestQuadrilateral(in: hull) else { return nil }
        var lines: [(point: SIMD2<Double>, direction: SIMD2<Double>)] = []
        for i in 0..<4 {
            let a = rough[i], b = rough[(i + 1) % 4]
            let length = RasterOps.length(b - a)
            guard length > 2 else { return nil }
            let dir = (b - a) / length
            let normal = SIMD2(-dir.y, dir.x)
            let tolerance = max(2.0, 0.02 * length)
            // Edge pixels along the middle of the side (the corners are rounded by the blur).
            let near = c.boundary.filter { p in
                let t = RasterOps.dot(p - a, dir)
                return t > 0.1 * length && t < 0.9 * length && abs(RasterOps.dot(p - a, normal)) < tolerance
            }
            guard near.count >= 4, let line = RasterOps.fitLine(near) else { return nil }
            lines.append(line)
        }
        var corners: [SIMD2<Double>] = []
        for i in 0..<4 {
            guard let p = RasterOps.intersect(lines[(i + 3) % 4], lines[i]) else { return nil }
            // A crossing far from the rough corner means the sides were not straight.
            guard RasterOps.length(p - rough[i]) < 0.25 * RasterOps.length(rough[(i + 1) % 4] - rough[i]) + 4 else { return nil }
            corners.append(p)
        }
        // Edge pixel centres sit half a pixel inside the region's outline: move each corner out
        // along its diagonal from the centre by that much.
        let centre = corners.reduce(SIMD2<Double>(0, 0), +) / 4
        return corners.map { p in
            let d = p - centre
            let l = RasterOps.length(d)
            return l > 0 ? p + d / l * (0.5 * 1.4142135) : p
        }
    }
}
