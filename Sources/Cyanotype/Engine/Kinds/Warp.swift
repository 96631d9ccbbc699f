// The warp kind: every output pixel centre goes through a destination-to-source map to one
// point of the input, which is sampled bilinearly (premultiplied, neighbours outside the
// input clear). Projective maps, radial distortions, maps read from a second image and
// (through `PlaneFold`) folds of the plane are all this node with a different map.

/// A rectangle of points in Double: the pixel centres of a tile, or the source points they map to.
struct PointBox: Equatable, Sendable {
    var minX, minY, maxX, maxY: Double

    init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
    /// The centres of `rect`'s pixels.
    init(centresOf rect: PixelRect) {
        self.init(
            minX: Double(rect.minX) + 0.5, minY: Double(rect.minY) + 0.5,
            maxX: Double(rect.maxX) - 0.5, maxY: Double(rect.maxY) - 0.5)
    }
    /// Every point: for maps whose source points may lie anywhere.
    static let everywhere = PointBox(minX: -.infinity, minY: -.infinity, maxX: .infinity, maxY: .infinity)

    func union(_ o: PointBox) -> PointBox {
        PointBox(minX: min(minX, o.minX), minY: min(minY, o.minY), maxX: max(maxX, o.maxX), maxY: max(maxY, o.maxY))
    }
    mutating func include(_ x: Double, _ y: Double) {
        minX = min(minX, x); minY = min(minY, y); maxX = max(maxX, x); maxY = max(maxY, y)
    }
    static func point(_ x: Double, _ y: Double) -> PointBox { PointBox(minX: x, minY: y, maxX: x, maxY: y) }

    /// The distances from (cx, cy) to the nearest and farthest point of the box.
    func distances(from cx: Double, _ cy: Double) -> (near: Double, far: Double) {
        let dx = max(minX - cx, 0, cx - maxX), dy = max(minY - cy, 0, cy - maxY)
        let fx = max(abs(minX - cx), abs(maxX - cx)), fy = max(abs(minY - cy), abs(maxY - cy))
        return ((dx * dx + dy * dy).squareRoot(), (fx * fx + fy * fy).squareRoot())
    }

    /// The angles (radians) the box spans seen from (cx, cy): nil when the box contains that
    /// point (every direction). The span is less than pi otherwise (the box is convex).
    func angles(from cx: Double, _ cy: Double) -> (Double, Double)? {
        if distances(from: cx, cy).near <= 0 { return nil }
        let ref = atan2((minY + maxY) / 2 - cy, (minX + maxX) / 2 - cx)
        var lo = Double.infinity, hi = -Double.infinity
        for (x, y) in [(minX, minY), (maxX, minY), (maxX, maxY), (minX, maxY)] {
            let d = remainder(atan2(y - cy, x - cx) - ref, 2 * Double.pi)
            lo = min(lo, d); hi = max(hi, d)
        }
        return (ref + lo, ref + hi)
    }

    /// The bounding box of the annular sector around (cx, cy) of distances smin...smax and
    /// angles a0...a1 (every angle when nil or when the span reaches a full turn).
    static func sector(_ cx: Double, _ cy: Double, angles: (Double, Double)?, _ smin: Double, _ smax: Double) -> PointBox {
        guard let (a0, a1) = angles, a1 - a0 < 2 * Double.pi else {
            return PointBox(minX: cx - smax, minY: cy - smax, maxX: cx + smax, maxY: cy + smax)
        }
        var b = PointBox.point(cx + smin * cos(a0), cy + smin * sin(a0))
        for (a, s) in [(a0, smax), (a1, smin), (a1, smax)] { b.include(cx + s * cos(a), cy + s * sin(a)) }
        // The axis directions inside the span reach farthest along x or y.
        var k = (a0 / (Double.pi / 2)).rounded(.up)
        while k * Double.pi / 2 <= a1 {
            let a = k * Double.pi / 2
            b.include(cx + smax * cos(a), cy + smax * sin(a))
            k += 1
        }
        return b
    }

    /// The pixels bilinear samples at the points of the box read: sample point p reads pixels
    /// floor(p - 0.5) and the one after, and a hair of slack covers rounding between a map's
    /// bound and its per-pixel arithmetic. Limited to ±2^30; nil when a side is NaN.
    var bilinearTaps: PixelRect? {
        if minX.isNaN || minY.isNaN || maxX.isNaN || maxY.isNaN { return nil }
        let lim = Double(PixelRect.limit)
        func cl(_ v: Double) -> Int { Int(min(max(v, -lim), lim)) }
        func slack(_ v: Double) -> Double { 1e-6 * (1 + abs(v)) }
        return PixelRect(
            minX: cl((minX - 0.5 - slack(minX)).rounded(.down)),
            minY: cl((minY - 0.5 - slack(minY)).rounded(.down)),
            maxX: cl((maxX - 0.5 + slack(maxX)).rounded(.down)) + 2,
            maxY: cl((maxY - 0.5 + slack(maxY)).rounded(.down)) + 2)
    }
}

/// A warp's maths: where each output point reads its input. This is all a warp filter
/// supplies; ``WarpNode`` does the tiling, the region of interest and the sampling.
///
/// To add a warp, write a struct conforming to this in the filter's own file under
/// `Filters/` and build `WarpNode(input:map:extent:)` from the filter's declaration:
///
///     struct SwirlMap: WarpMap {
///         let cx: Double, cy: Double
///         func source(_ x: Double, _ y: Double) -> (Double, Double)? { ... }
///         func sourceBounds(_ box: PointBox) -> PointBox? { ... }
///         var label: String { "swirl centre (\(cx), \(cy))" }
///     }
///
/// The pixel loop is the protocol's `resample` requirement, whose default implementation is
/// specialised for each conforming type, so `source` is inlined into it (write it as plain
/// arithmetic, marked `@inline(__always)`) and the node dispatches once per tile. Make map
/// types concrete structs: a generic one (`Map<T>`) shares one unspecialised loop, which
/// calls `source` dynamically per pixel.
protocol WarpMap: Sendable {
    /// The source point of the output point (x, y) (a pixel centre); nil where the output is
    /// clear. Each pixel's point must come from its own coordinates alone, so tiled and whole
    /// renders agree bit for bit.
    func source(_ x: Double, _ y: Double) -> (Double, Double)?
    /// A box holding the source points of every point of `box` (conservative: exact is best,
    /// larger only costs reads; `PointBox.everywhere` when unknown); nil when none of them
    /// reads the input.
    func sourceBounds(_ box: PointBox) -> PointBox?
    /// Whether the map costs enough per pixel that a node read by several consumers is worth
    /// materialising once (default false).
    var isExpensive: Bool { get }
    /// Images besides the warped one that the map reads (a displacement image); default none.
    /// They are the node's inputs 1...auxiliaryCount.
    static var auxiliaryCount: Int { get }
    /// The rectangle of auxiliary input `index` (1...) a tile of `rect` reads (default `rect`).
    func auxiliaryRect(_ index: Int, for rect: PixelRect) -> PixelRect
    /// The map over the output tile `rect`, given the auxiliary inputs' pixels over their
    /// `auxiliaryRect`s (default: the map itself). Its `sourceBounds` then narrows the tile's
    /// read to the points it really maps to.
    func tile(_ rect: PixelRect, auxiliary: [PixelBlock]) -> Self
    /// Fills `out` (the pixels of `rect`) with bilinear samples of `source` (the input
    /// pixels of `sourceRect`) at the map's source points. The default is the pixel loop, and
    /// being a requirement it is specialised for each map type; a map with faster loops of
    /// the same maths (an affine map's axis-aligned and nearest ones) implements its own.
    func resample(_ rect: PixelRect, into out: TileBuffer, from source: TileBuffer, sourceRect: PixelRect)
    /// The input pixels a tile of `rect` reads (default: the pixels the bilinear samples at
    /// `sourceBounds` of its pixel centres read). A map that knows its region exactly (an
    /// affine map, a user kernel's ROI callback) states it.
    func sourceRect(for rect: PixelRect) -> PixelRect
    /// Whether a tile of `rect` that reads `source` is split into quarters (default: a map
    /// that reads no other image, reading more than four times the tile and 2^18 pixels).
    func splitsTile(_ rect: PixelRect, reading source: PixelRect) -> Bool
    /// How far around its source point a pixel reads, for sizing tiles (default 1, the
    /// bilinear sampler's; 0 for maps that only move whole pixels).
    var halo: Int { get }
    /// Whether the map moves whole pixels (default false): the kind then asks `pixelRun`
    /// for the runs of each row and copies them, instead of sampling.
    var movesWholePixels: Bool { get }
    /// For a map that moves whole pixels: the run of output row `y` from column `x` (at most
    /// `count` pixels, at least one) whose pixels are whole input pixels in a straight line;
    /// nil when pixel `x` is not one (the rest of the row is then sampled). Default nil.
    func pixelRun(x: Int, y: Int, count: Int) -> PixelRun?
    /// The part of `rect` that is the input itself, unmoved (inside a clamp's, a mirror's or
    /// a repeat's rectangle); nil when none is (the default). The kind reads the input
    /// straight into that part of the tile and maps only the rest, from the pixels it just
    /// read: so every other pixel of `rect` must read only pixels of that part
    /// (`sourceRect(for: rect)` lies inside it). A map answers nil where that does not hold.
    func inPlaceRegion(for rect: PixelRect) -> PixelRect?
    /// One line for `CIContext.explain`.
    var label: String { get }
}

/// Output pixels that are input pixels in a straight line: pixel `k` of the run (0..<count)
/// is input pixel (x + k * stepX, y + k * stepY). A row copy steps (1, 0); a quarter turn
/// walks a column; a step of 0 repeats one pixel.
struct PixelRun: Equatable, Sendable {
    /// The input pixel of the run's first output pixel.
    var x: Int, y: Int
    /// The input step from one output pixel of the run to the next.
    var stepX: Int, stepY: Int
    /// How many output pixels the run covers.
    var count: Int
}

extension WarpMap {
    var isExpensive: Bool { false }
    static var auxiliaryCount: Int { 0 }
    func auxiliaryRect(_ index: Int, for rect: PixelRect) -> PixelRect { rect }
    func tile(_ rect: PixelRect, auxiliary: [PixelBlock]) -> Self { self }
    func sourceRect(for rect: PixelRect) -> PixelRect { sourceBounds(PointBox(centresOf: rect))?.bilinearTaps ?? .empty }
    func splitsTile(_ rect: PixelRect, reading source: PixelRect) -> Bool {
        Self.auxiliaryCount == 0 && source.area > max(4 * rect.area, 1 << 18) && rect.area > 1
    }
    var halo: Int { 1 }
    var movesWholePixels: Bool { false }
    func pixelRun(x: Int, y: Int, count: Int) -> PixelRun? { nil }
    func inPlaceRegion(for rect: PixelRect) -> PixelRect? { nil }

    /// The pixel loop: each pixel's source point from its own coordinates, sampled
    /// bilinearly (`TileBuffer.bilinearClear`); no point, or one beyond 1e9, is clear.
    func resample(_ rect: PixelRect, into out: TileBuffer, from source: TileBuffer, sourceRect: PixelRect) {
        let sx0 = sourceRect.minX, sy0 = sourceRect.minY
        // A local copy: stores to the output cannot alias it, so its fields stay in registers
        // and terms of the row hoist out of the loop.
        let map = self
        for r in 0..<out.height {
            let yc = Double(rect.minY + r) + 0.5
            let d = out.row(r)
            for k in 0..<out.width {
                let xc = Double(rect.minX + k) + 0.5
                guard let (su, sv) = map.source(xc, yc) else { d[k] = .zero; continue }
                let u = su - 0.5, v = sv - 0.5
                // Far outside (or NaN): clear.
                guard abs(u) < 1e9, abs(v) < 1e9 else { d[k] = .zero; continue }
                d[k] = source.bilinearClear(u: u, v: v, originX: sx0, originY: sy0)
            }
        }
    }
}

/// What every warp node shows without its map's type: the map as an existential, for tests,
/// tools and `explain` (never for pixel loops, which run on `WarpNode`'s typed map).
protocol TypeErasedWarp: RecipeNode {
    /// The map, type-erased.
    var map: any WarpMap { get }
}

/// The warp kind: resamples its input through a `WarpMap`. Each output pixel centre's source
/// point is computed from the pixel's own coordinates (so tiled and whole renders agree bit for
/// bit) and sampled bilinearly in the premultiplied working space, neighbours outside the
/// input clear (`TileBuffer.bilinearClear`). Maps that move whole pixels (orientations,
/// whole-pixel shifts, repeats, mirrors, clamps) are copied run by run instead (`pixelRun`);
/// where a map says part of a tile is its input unmoved (`inPlaceRegion`), the input is read
/// straight into that part and only the rest is mapped, from it.
///
/// Region of interest: the map's `sourceRect` (by default `sourceBounds` of the tile's pixel
/// centres, plus the sampler's pixel). A tile of a coordinate map whose source points spread
/// far (near a strong twist's centre, a large cell, a strong reduction) is split into quarters
/// until it reads a compact block; a map that reads images narrows its tile's block to the
/// points it found instead.
final class WarpNode<Map: WarpMap>: RecipeNode, TypeErasedWarp, @unchecked Sendable {
    /// The map, typed.
    let warpMap: Map
    var map: any WarpMap { warpMap }

    /// `auxiliary` are the images the map reads (`Map.auxiliaryCount` of them).
    init(input: RecipeNode, map: Map, extent: CGRect, auxiliary: [RecipeNode] = []) {
        precondition(auxiliary.count == Map.auxiliaryCount, "a warp map reads \(Map.auxiliaryCount) auxiliary images")
        self.warpMap = map
        super.init(extent: extent, inputs: [input] + auxiliary, traits: NodeTraits(halo: map.halo, isExpensive: map.isExpensive))
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        if rect.isEmpty { return .empty }
        if index > 0 { return warpMap.auxiliaryRect(index, for: rect) }
        return warpMap.sourceRect(for: rect)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let input = inputs[0]
        var map = warpMap
        if Map.auxiliaryCount > 0 {
            let blocks = (1...Map.auxiliaryCount).map { i -> PixelBlock in
                let r = warpMap.auxiliaryRect(i, for: rect)
                let b = PixelBlock(rect: r)
                ev.fill(inputs[i], r, b.buffer)
                return b
            }
            map = warpMap.tile(rect, auxiliary: blocks)
        }
        if let inner = map.inPlaceRegion(for: rect), !inner.isEmpty {
            // The input fills its own part of the tile in place (all of it, for a tile inside a
            // clamp's rectangle: no copy at all); the rest reads the pixels just filled.
            assert(rect.contains(inner) && inner.contains(map.sourceRect(for: rect)), "\(map.label): in-place region \(inner) of \(rect)")
            let filled = out.view(x: inner.minX - rect.minX, y: inner.minY - rect.minY, width: inner.width, height: inner.height)
            ev.fill(input, inner, filled)
            if inner != rect { Self.mapAround(inner, of: rect, map, into: out, from: filled) }
            return
        }
        let src = rect.isEmpty ? .empty : map.sourceRect(for: rect).intersection(input.pixelExtent)
        if src.isEmpty { out.zero(); return }
        // A tile whose source points spread far would read a big block: split it (one pixel
        // reads at most 2x2). Maps that read images already narrowed the block to the tile.
        if map.splitsTile(rect, reading: src) {
            evaluateInQuarters(rect, into: out, ev)
            return
        }
        let block = PixelBlock(rect: src)
        ev.fill(input, src, block.buffer)
        Self.fillMapped(map, rect, into: out, from: block.buffer, sourceRect: src)
    }

    /// The pixels of `rect` from the source pixels of `src`: copied run by run for a map that
    /// moves whole pixels, sampled otherwise (one dynamic call, the loop inside specialised for
    /// the map).
    private static func fillMapped(_ map: Map, _ rect: PixelRect, into out: TileBuffer, from sb: TileBuffer, sourceRect src: PixelRect) {
        if map.movesWholePixels {
            copyRuns(map, rect, into: out, from: sb, sourceRect: src)
            return
        }
        map.resample(rect, into: out, from: sb, sourceRect: src)
    }

    /// The pixels of `rect` around `inner` (the bands below and above it, then its left and
    /// right sides), mapped from `filled`, the tile's pixels of `inner`; those are not written.
    private static func mapAround(_ inner: PixelRect, of rect: PixelRect, _ map: Map, into out: TileBuffer, from filled: TileBuffer) {
        let parts = [
            PixelRect(minX: rect.minX, minY: rect.minY, maxX: rect.maxX, maxY: inner.minY),
            PixelRect(minX: rect.minX, minY: inner.maxY, maxX: rect.maxX, maxY: rect.maxY),
            PixelRect(minX: rect.minX, minY: inner.minY, maxX: inner.minX, maxY: inner.maxY),
            PixelRect(minX: inner.maxX, minY: inner.minY, maxX: rect.maxX, maxY: inner.maxY),
        ]
        for part in parts where !part.isEmpty {
            let view = out.view(x: part.minX - rect.minX, y: part.minY - rect.minY, width: part.width, height: part.height)
            Self.fillMapped(map, part, into: view, from: filled, sourceRect: inner)
        }
    }

    /// The tile of a map that moves whole pixels: each row as the map's runs, copied (clear
    /// where a run leaves the source block); a pixel that is no whole input pixel is sampled,
    /// with the rest of its row.
    private static func copyRuns(_ map: Map, _ rect: PixelRect, into out: TileBuffer, from sb: TileBuffer, sourceRect src: PixelRect) {
        let w = out.width
        for r in 0..<out.height {
            let y = rect.minY + r
            let d = out.row(r)
            var i = 0
            while i < w {
                guard let run = map.pixelRun(x: rect.minX + i, y: y, count: w - i) else {
                    let rest = PixelRect(minX: rect.minX + i, minY: y, maxX: rect.maxX, maxY: y + 1)
                    map.resample(rest, into: out.view(x: i, y: r, width: w - i, height: 1), from: sb, sourceRect: src)
                    break
                }
                let n = min(max(run.count, 1), w - i)
                copy(run, n, into: d + i, from: sb, sourceRect: src)
                i += n
            }
        }
    }

    /// `n` pixels of `run` into `d`, clear outside the source block.
    @inline(__always) private static func copy(_ run: PixelRun, _ n: Int, into d: UnsafeMutablePointer<SIMD4<Float>>, from sb: TileBuffer, sourceRect src: PixelRect) {
        let sx = run.x - src.minX, sy = run.y - src.minY
        if run.stepX == 1 && run.stepY == 0 {
            guard sy >= 0 && sy < src.height else { d.update(repeating: .zero, count: n); return }
            // The part of the row inside the block is copied; the rest is clear.
            let lo = min(max(-sx, 0), n), hi = max(min(src.width - sx, n), lo)
            if lo > 0 { d.update(repeating: .zero, count: lo) }
            if hi > lo { (d + lo).update(from: sb.row(sy) + (sx + lo), count: hi - lo) }
            if hi < n { (d + hi).update(repeating: .zero, count: n - hi) }
            return
        }
        if run.stepX == 0 && run.stepY == 0 {
            // One pixel repeated (a clamp's edge).
            let inside = sx >= 0 && sy >= 0 && sx < src.width && sy < src.height
            d.update(repeating: inside ? sb.row(sy)[sx] : .zero, count: n)
            return
        }
        for k in 0..<n {
            let px = sx + k * run.stepX, py = sy + k * run.stepY
            d[k] = (px >= 0 && py >= 0 && px < src.width && py < src.height) ? sb.row(py)[px] : .zero
        }
    }

    override var label: String { "warp \(warpMap.label)" }
}
