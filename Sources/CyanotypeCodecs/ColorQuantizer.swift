import Foundation

/// One frame reduced to a palette: `indices` (width x height, row by row) into `palette`
/// (0xRRGGBB words); `transparentIndex` is the palette entry that marks clear pixels, -1 for none.
struct QuantizedFrame {
    var width: Int, height: Int
    var palette: [UInt32]
    var indices: [UInt8]
    var transparentIndex: Int
    var delay: Double = 0
}

/// Reduces RGBA8 pixels to at most 256 colours for GIF.
///
/// A frame with 256 colours or fewer (255 when some pixels are clear) keeps them exactly.
/// Otherwise the palette comes from Xiaolin Wu's colour quantiser ("Efficient Statistical
/// Computations for Optimal Color Quantization", Graphics Gems II, 1991): a 32-level-per-channel
/// histogram with cumulative moments, and boxes cut where the squared error falls most, until
/// there are enough. Pixels then take their nearest palette colour (squared RGB distance,
/// through a 64-level-per-channel cache of answers), optionally with Floyd-Steinberg error
/// diffusion. Pixels with alpha below 128 take the transparent index.
enum ColorQuantizer {
    static func quantize(_ rgba: UnsafeBufferPointer<UInt8>, width: Int, height: Int, alpha: Bool, dithering: Bool) -> QuantizedFrame {
        let n = width * height
        let src = rgba.baseAddress!
        var anyClear = false
        if alpha {
            for i in 0..<n where src[i * 4 + 3] < 128 {
                anyClear = true
                break
            }
        }
        let maxColors = anyClear ? 255 : 256
        if let exact = exactPalette(src, count: n, maxColors: maxColors, alpha: anyClear) {
            return QuantizedFrame(
                width: width, height: height, palette: exact.palette + (anyClear ? [0] : []),
                indices: exact.indices, transparentIndex: anyClear ? exact.palette.count : -1)
        }
        var palette = WuQuantizer(src, count: n, alpha: anyClear).palette(maxColors: maxColors)
        let clearIndex = anyClear ? palette.count : -1
        let indices = map(src, width: width, height: height, palette: palette, clearIndex: clearIndex, dithering: dithering)
        if anyClear { palette.append(0) }
        return QuantizedFrame(width: width, height: height, palette: palette, indices: indices, transparentIndex: clearIndex)
    }

    /// The frame's own colours when there are at most `maxColors`, with each pixel's index.
    static func exactPalette(_ src: UnsafePointer<UInt8>, count n: Int, maxColors: Int, alpha: Bool)
        -> (palette: [UInt32], indices: [UInt8])?
    {
        // Open addressing over 1024 slots; key 0xFFFFFFFF marks an empty slot.
        var keys = [UInt32](repeating: .max, count: 1024)
        var values = [UInt8](repeating: 0, count: 1024)
        var palette: [UInt32] = []
        palette.reserveCapacity(maxColors)
        var indices = [UInt8](repeating: 0, count: n)
        let clear = UInt8(truncatingIfNeeded: maxColors)  // the index after the colours (fixed below)
        var clearPixels: [Int] = []
        for i in 0..<n {
            let p = src + i * 4
            if alpha && p[3] < 128 {
                clearPixels.append(i)
                continue
            }
            let c = UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
            var slot = Int((c &* 2_654_435_761) >> 22) & 1023
            while true {
                if keys[slot] == c { indices[i] = values[slot]; break }
                if keys[slot] == .max {
                    guard palette.count < maxColors else { return nil }
                    keys[slot] = c
                    values[slot] = UInt8(palette.count)
                    indices[i] = UInt8(palette.count)
                    palette.append(c)
                    break
                }
                slot = (slot + 1) & 1023
            }
        }
        _ = clear
        if palette.isEmpty { palette = [0] }
        for i in clearPixels { indices[i] = UInt8(palette.count) }
        return (palette, indices)
    }

    /// Nearest palette colours, with Floyd-Steinberg error diffusion when asked.
    static func map(_ src: UnsafePointer<UInt8>, width: Int, height: Int, palette: [UInt32], clearIndex: Int, dithering: Bool) -> [UInt8] {
        let nearest = NearestColor(palette)
        var out = [UInt8](repeating: 0, count: width * height)
        // Errors in sixteenths, for this row and the next, with a pixel of margin each side.
        var errThis = [Int32](repeating: 0, count: (width + 2) * 3)
        var errNext = errThis
        let pr = palette.map { Int32($0 >> 16 & 0xFF) }, pg = palette.map { Int32($0 >> 8 & 0xFF) }, pb = palette.map { Int32($0 & 0xFF) }
        out.withUnsafeMutableBufferPointer { o in
            for y in 0..<height {
                for x in 0..<width {
                    let p = src + (y * width + x) * 4
                    if clearIndex >= 0 && p[3] < 128 {
                        o[y * width + x] = UInt8(clearIndex)
                        continue
                    }
                    var r = Int32(p[0]), g = Int32(p[1]), b = Int32(p[2])
                    if dithering {
                        let e = (x + 1) * 3
                        r = min(max(r + (errThis[e] + 8) >> 4, 0), 255)
                        g = min(max(g + (errThis[e + 1] + 8) >> 4, 0), 255)
                        b = min(max(b + (errThis[e + 2] + 8) >> 4, 0), 255)
                    }
                    let k = nearest.index(Int(r), Int(g), Int(b))
                    o[y * width + x] = UInt8(k)
                    if dithering {
                        let dr = r - pr[k], dg = g - pg[k], db = b - pb[k]
                        let e = (x + 1) * 3
                        // 7/16 right, 3/16 below left, 5/16 below, 1/16 below right.
                        errThis[e + 3] += dr * 7; errThis[e + 4] += dg * 7; errThis[e + 5] += db * 7
                        errNext[e - 3] += dr * 3; errNext[e - 2] += dg * 3; errNext[e - 1] += db * 3
                        errNext[e] += dr * 5; errNext[e + 1] += dg * 5; errNext[e + 2] += db * 5
                        errNext[e + 3] += dr; errNext[e + 4] += dg; errNext[e + 5] += db
                    }
                }
                if dithering {
                    swap(&errThis, &errNext)
                    for i in errNext.indices { errNext[i] = 0 }
                }
            }
        }
        return out
    }
}

/// Nearest palette entry by squared RGB distance, cached per 64-level cell of the colour cube
/// (the answer for the cell's centre).
final class NearestColor {
    private let r: [Int32], g: [Int32], b: [Int32]
    /// Palette indices sorted by green, for a search that stops once green alone is too far.
    private let byGreen: [Int]
    private var cache: [Int16]

    init(_ palette: [UInt32]) {
        let greens = palette.map { Int32($0 >> 8 & 0xFF) }
        r = palette.map { Int32($0 >> 16 & 0xFF) }
        g = greens
        b = palette.map { Int32($0 & 0xFF) }
        byGreen = palette.indices.sorted { (greens[$0], $0) < (greens[$1], $1) }
        cache = [Int16](repeating: -1, count: 1 << 18)
    }

    @inline(__always)
    func index(_ red: Int, _ green: Int, _ blue: Int) -> Int {
        let key = (red >> 2) << 12 | (green >> 2) << 6 | (blue >> 2)
        let hit = cache[key]
        if hit >= 0 { return Int(hit) }
        let k = search(Int32(red & ~3 | 2), Int32(green & ~3 | 2), Int32(blue & ~3 | 2))
        cache[key] = Int16(k)
        return k
    }

    private func search(_ cr: Int32, _ cg: Int32, _ cb: Int32) -> Int {
        // Binary search for the green closest, then walk outward both ways.
        var lo = 0, hi = byGreen.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if g[byGreen[mid]] < cg { lo = mid + 1 } else { hi = mid }
        }
        var best = 0, bestD = Int32.max
        var up = lo, down = lo - 1
        while up < byGreen.count || down >= 0 {
            if up < byGreen.count {
                let i = byGreen[up]
                let dg = g[i] - cg
                if dg * dg >= bestD {
                    up = byGreen.count
                } else {
                    let dr = r[i] - cr, db = b[i] - cb
                    let d = dr * dr + dg * dg + db * db
                    if d < bestD { bestD = d; best = i }
                    up += 1
                }
            }
            if down >= 0 {
                let i = byGreen[down]
                let dg = g[i] - cg
                if dg * dg >= bestD {
                    down = -1
                } else {
                    let dr = r[i] - cr, db = b[i] - cb
                    let d = dr * dr + dg * dg + db * db
                    if d < bestD { bestD = d; best = i }
                    down -= 1
                }
            }
        }
        return best
    }
}

/// Xiaolin Wu's quantiser over a 33^3 table of cumulative moments (index 0 of each axis is 0).
struct WuQuantizer {
    static let side = 33
    var weight: [Int64], mr: [Int64], mg: [Int64], mb: [Int64]
    var m2: [Double]

    struct Box { var r0 = 0, r1 = 0, g0 = 0, g1 = 0, b0 = 0, b1 = 0, volume = 0 }

    @inline(__always) static func at(_ r: Int, _ g: Int, _ b: Int) -> Int { (r * side + g) * side + b }

    init(_ src: UnsafePointer<UInt8>, count n: Int, alpha: Bool) {
        let size = Self.side * Self.side * Self.side
        weight = [Int64](repeating: 0, count: size)
        mr = weight; mg = weight; mb = weight
        m2 = [Double](repeating: 0, count: size)
        var w = [Int32](repeating: 0, count: size)
        var sr = [Int32](repeating: 0, count: size), sg = sr, sb = sr
        var sq = [Double](repeating: 0, count: size)
        // Per-cell sums: counts in Int32 are safe per frame only below 2^31 pixels per cell,
        // and sums of values below 256 below 2^23 pixels; larger frames accumulate in chunks.
        var start = 0
        while start < n {
            let end = min(n, start + (1 << 22))
            for i in start..<end {
                let p = src + i * 4
                if alpha && p[3] < 128 { continue }
                let r = Int(p[0]), g = Int(p[1]), b = Int(p[2])
                let k = Self.at((r >> 3) + 1, (g >> 3) + 1, (b >> 3) + 1)
                w[k] += 1
                sr[k] += Int32(r); sg[k] += Int32(g); sb[k] += Int32(b)
                sq[k] += Double(r * r + g * g + b * b)
            }
            for k in 0..<size where w[k] != 0 {
                weight[k] += Int64(w[k]); mr[k] += Int64(sr[k]); mg[k] += Int64(sg[k]); mb[k] += Int64(sb[k]); m2[k] += sq[k]
                w[k] = 0; sr[k] = 0; sg[k] = 0; sb[k] = 0; sq[k] = 0
            }
            start = end
        }
        cumulate()
    }

    /// Turns cell sums into cumulative moments (sums over [1...r] x [1...g] x [1...b]).
    mutating func cumulate() {
        let s = Self.side
        var area = [Int64](repeating: 0, count: s), ar = area, ag = area, ab = area
        var area2 = [Double](repeating: 0, count: s)
        for r in 1..<s {
            for i in 0..<s { area[i] = 0; ar[i] = 0; ag[i] = 0; ab[i] = 0; area2[i] = 0 }
            for g in 1..<s {
                var line: Int64 = 0, lr: Int64 = 0, lg: Int64 = 0, lb: Int64 = 0
                var line2: Double = 0
                for b in 1..<s {
                    let k = Self.at(r, g, b)
                    line += weight[k]; lr += mr[k]; lg += mg[k]; lb += mb[k]; line2 += m2[k]
                    area[b] += line; ar[b] += lr; ag[b] += lg; ab[b] += lb; area2[b] += line2
                    let below = Self.at(r - 1, g, b)
                    weight[k] = weight[below] + area[b]
                    mr[k] = mr[below] + ar[b]
                    mg[k] = mg[below] + ag[b]
                    mb[k] = mb[below] + ab[b]
                    m2[k] = m2[below] + area2[b]
                }
            }
        }
    }

    /// The sum of `m` over the box (inclusion-exclusion over its corners).
    @inline(__always) func volume<T: AdditiveArithmetic>(_ c: Box, _ m: [T]) -> T {
        let a = m[Self.at(c.r1, c.g1, c.b1)] - m[Self.at(c.r1, c.g1, c.b0)] - m[Self.at(c.r1, c.g0, c.b1)] + m[Self.at(c.r1, c.g0, c.b0)]
        let b = m[Self.at(c.r0, c.g1, c.b1)] - m[Self.at(c.r0, c.g1, c.b0)] - m[Self.at(c.r0, c.g0, c.b1)] + m[Self.at(c.r0, c.g0, c.b0)]
        return a - b
    }

    enum Axis { case red, green, blue }

    /// The part of the box's moment below the plane, apart from the term at the cut itself.
    func bottom(_ c: Box, _ axis: Axis, _ m: [Int64]) -> Int64 {
        switch axis {
        case .red:
            return -m[Self.at(c.r0, c.g1, c.b1)] + m[Self.at(c.r0, c.g1, c.b0)] + m[Self.at(c.r0, c.g0, c.b1)] - m[Self.at(c.r0, c.g0, c.b0)]
        case .green:
            return -m[Self.at(c.r1, c.g0, c.b1)] + m[Self.at(c.r1, c.g0, c.b0)] + m[Self.at(c.r0, c.g0, c.b1)] - m[Self.at(c.r0, c.g0, c.b0)]
        case .blue:
            return -m[Self.at(c.r1, c.g1, c.b0)] + m[Self.at(c.r1, c.g0, c.b0)] + m[Self.at(c.r0, c.g1, c.b0)] - m[Self.at(c.r0, c.g0, c.b0)]
        }
    }

    func top(_ c: Box, _ axis: Axis, _ pos: Int, _ m: [Int64]) -> Int64 {
        switch axis {
        case .red:
            return m[Self.at(pos, c.g1, c.b1)] - m[Self.at(pos, c.g1, c.b0)] - m[Self.at(pos, c.g0, c.b1)] + m[Self.at(pos, c.g0, c.b0)]
        case .green:
            return m[Self.at(c.r1, pos, c.b1)] - m[Self.at(c.r1, pos, c.b0)] - m[Self.at(c.r0, pos, c.b1)] + m[Self.at(c.r0, pos, c.b0)]
        case .blue:
            return m[Self.at(c.r1, c.g1, pos)] - m[Self.at(c.r1, c.g0, pos)] - m[Self.at(c.r0, c.g1, pos)] + m[Self.at(c.r0, c.g0, pos)]
        }
    }

    /// The box's weighted variance (sum of squared distances to its mean).
    func variance(_ c: Box) -> Double {
        let dr = Double(volume(c, mr)), dg = Double(volume(c, mg)), db = Double(volume(c, mb))
        let xx = volume(c, m2)
        let w = Double(volume(c, weight))
        return w > 0 ? xx - (dr * dr + dg * dg + db * db) / w : 0
    }

    /// The best cut of the box along `axis`: the position and the figure of merit.
    func maximize(_ c: Box, _ axis: Axis, first: Int, last: Int, whole: (r: Int64, g: Int64, b: Int64, w: Int64)) -> (Int, Double) {
        let baseR = bottom(c, axis, mr), baseG = bottom(c, axis, mg), baseB = bottom(c, axis, mb), baseW = bottom(c, axis, weight)
        var best = 0.0, cut = -1
        for i in first..<last {
            var hr = baseR + top(c, axis, i, mr), hg = baseG + top(c, axis, i, mg), hb = baseB + top(c, axis, i, mb)
            var hw = baseW + top(c, axis, i, weight)
            if hw == 0 { continue }
            var temp = (Double(hr) * Double(hr) + Double(hg) * Double(hg) + Double(hb) * Double(hb)) / Double(hw)
            hr = whole.r - hr; hg = whole.g - hg; hb = whole.b - hb; hw = whole.w - hw
            if hw == 0 { continue }
            temp += (Double(hr) * Double(hr) + Double(hg) * Double(hg) + Double(hb) * Double(hb)) / Double(hw)
            if temp > best { best = temp; cut = i }
        }
        return (cut, best)
    }

    /// Splits `a` into `a` and `b`; false when it cannot be split.
    func cut(_ a: inout Box, _ b: inout Box) -> Bool {
        let whole = (volume(a, mr), volume(a, mg), volume(a, mb), volume(a, weight))
        let (cutR, maxR) = maximize(a, .red, first: a.r0 + 1, last: a.r1, whole: whole)
        let (cutG, maxG) = maximize(a, .green, first: a.g0 + 1, last: a.g1, whole: whole)
        let (cutB, maxB) = maximize(a, .blue, first: a.b0 + 1, last: a.b1, whole: whole)
        let axis: Axis
        if maxR >= maxG && maxR >= maxB {
            axis = .red
        } else if maxG >= maxR && maxG >= maxB {
            axis = .green
        } else {
            axis = .blue
        }
        let position = axis == .red ? cutR : axis == .green ? cutG : cutB
        if position < 0 { return false }  // nothing to split
        b.r1 = a.r1; b.g1 = a.g1; b.b1 = a.b1
        switch axis {
        case .red: b.r0 = cutR; a.r1 = cutR; b.g0 = a.g0; b.b0 = a.b0
        case .green: b.g0 = cutG; a.g1 = cutG; b.r0 = a.r0; b.b0 = a.b0
        case .blue: b.b0 = cutB; a.b1 = cutB; b.r0 = a.r0; b.g0 = a.g0
        }
        a.volume = (a.r1 - a.r0) * (a.g1 - a.g0) * (a.b1 - a.b0)
        b.volume = (b.r1 - b.r0) * (b.g1 - b.g0) * (b.b1 - b.b0)
        return true
    }

    /// Up to `maxColors` colours: the mean of each box.
    func palette(maxColors: Int) -> [UInt32] {
        var boxes = [Box](repeating: Box(), count: maxColors)
        var vv = [Double](repeating: 0, count: maxColors)
        boxes[0].r1 = Self.side - 1; boxes[0].g1 = Self.side - 1; boxes[0].b1 = Self.side - 1
        var next = 0
        var count = 1
        var i = 1
        while i < maxColors {
            var a = boxes[next], b = boxes[i]
            let didCut = cut(&a, &b)
            boxes[next] = a
            boxes[i] = b
            if didCut {
                vv[next] = boxes[next].volume > 1 ? variance(boxes[next]) : 0
                vv[i] = boxes[i].volume > 1 ? variance(boxes[i]) : 0
                count = i + 1
            } else {
                vv[next] = 0
                i -= 1
            }
            next = 0
            var temp = vv[0]
            var k = 1
            while k <= i {
                if vv[k] > temp { temp = vv[k]; next = k }
                k += 1
            }
            if temp <= 0 { count = i + 1; break }
            i += 1
        }
        var out: [UInt32] = []
        for k in 0..<min(count, maxColors) {
            let w = volume(boxes[k], weight)
            guard w > 0 else { continue }
            let r = UInt32((volume(boxes[k], mr) + w / 2) / w), g = UInt32((volume(boxes[k], mg) + w / 2) / w)
            let b = UInt32((volume(boxes[k], mb) + w / 2) / w)
            out.append(min(r, 255) << 16 | min(g, 255) << 8 | min(b, 255))
        }
        return out.isEmpty ? [0] : out
    }
}
