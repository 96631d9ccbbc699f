import Foundation

/// An independent reference for CSSgram looks, in Double, from the published formulas
/// (filter_effects.json) and the preset data (cssgram_presets.json): sRGB-encoded values,
/// overlays blended first, then each filter function clamped to [0, 1].
enum CSSReference {
    struct Stop { var rgba: [Double]; var pos: Double? }
    struct Background { var type: String; var rgba: [Double]?; var direction: String?; var at: [Double]?; var stops: [Stop]? }
    struct Overlay { var background: Background; var mode: String; var opacity: Double }
    struct Preset { var name: String; var filters: [(String, Double)]; var before: Overlay?; var after: Overlay? }

    static let presets: [Preset] = {
        let root = try! JSONSerialization.jsonObject(with: Data(cssgramPresetsJSON.utf8)) as! [String: Any]
        func overlay(_ any: Any?) -> Overlay? {
            guard let o = any as? [String: Any] else { return nil }
            let bg = o["background"] as! [String: Any]
            let stops = (bg["stops"] as? [[String: Any]])?.map { Stop(rgba: $0["rgba"] as! [Double], pos: $0["pos"] as? Double) }
            return Overlay(
                background: Background(
                    type: bg["type"] as! String, rgba: bg["rgba"] as? [Double], direction: bg["direction"] as? String,
                    at: bg["at"] as? [Double], stops: stops),
                mode: o["mix_blend_mode"] as! String, opacity: o["opacity"] as! Double)
        }
        return (root["presets"] as! [[String: Any]]).map { p in
            Preset(
                name: p["name"] as! String,
                filters: (p["filter"] as! [[String: Any]]).map { ($0["fn"] as! String, ($0["amount"] as! NSNumber).doubleValue) },
                before: overlay(p["before"]), after: overlay(p["after"]))
        }
    }()

    // Filter functions (filter_effects.json), W3C editor's draft coefficients.
    static func apply(_ fn: String, _ a: Double, _ c: [Double]) -> [Double] {
        let lr = 0.2126, lg = 0.7152, lb = 0.0722
        func mat(_ m: [[Double]]) -> [Double] { m.map { $0[0] * c[0] + $0[1] * c[1] + $0[2] * c[2] } }
        var out: [Double]
        switch fn {
        case "grayscale":
            let x = 1 - min(a, 1)
            out = mat([
                [0.2126 + 0.7874 * x, 0.7152 - 0.7152 * x, 0.0722 - 0.0722 * x],
                [0.2126 - 0.2126 * x, 0.7152 + 0.2848 * x, 0.0722 - 0.0722 * x],
                [0.2126 - 0.2126 * x, 0.7152 - 0.7152 * x, 0.0722 + 0.9278 * x],
            ])
        case "sepia":
            let x = 1 - min(a, 1)
            out = mat([
                [0.393 + 0.607 * x, 0.769 - 0.769 * x, 0.189 - 0.189 * x],
                [0.349 - 0.349 * x, 0.686 + 0.314 * x, 0.168 - 0.168 * x],
                [0.272 - 0.272 * x, 0.534 - 0.534 * x, 0.131 + 0.869 * x],
            ])
        case "saturate":
            let s = a
            out = mat([
                [0.2126 + 0.7874 * s, 0.7152 - 0.7152 * s, 0.0722 - 0.0722 * s],
                [0.2126 - 0.2126 * s, 0.7152 + 0.2848 * s, 0.0722 - 0.0722 * s],
                [0.2126 - 0.2126 * s, 0.7152 - 0.7152 * s, 0.0722 + 0.9278 * s],
            ])
        case "hue-rotate":
            let t = a * .pi / 180, co = cos(t), si = sin(t)
            let L = [[lr, lg, lb], [lr, lg, lb], [lr, lg, lb]]
            let C = [[1 - lr, -lg, -lb], [-lr, 1 - lg, -lb], [-lr, -lg, 1 - lb]]
            let S = [[-lr, -lg, 1 - lb], [0.143, 0.140, -0.283], [-(1 - lr), lg, lb]]
            out = mat((0..<3).map { i in (0..<3).map { j in L[i][j] + co * C[i][j] + si * S[i][j] } })
        case "contrast": out = c.map { a * $0 + (0.5 - 0.5 * a) }
        case "brightness": out = c.map { a * $0 }
        case "invert": out = c.map { min(a, 1) + (1 - 2 * min(a, 1)) * $0 }
        default: fatalError("unexpected \(fn)")
        }
        return out.map { min(max($0, 0), 1) }
    }

    // Blend modes (W3C Compositing and Blending Level 1).
    static func lum(_ c: [Double]) -> Double { 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2] }
    static func clip(_ c: [Double]) -> [Double] {
        let l = lum(c), n = c.min()!, x = c.max()!
        var c = c
        if n < 0 { c = c.map { l + ($0 - l) * l / (l - n) } }
        if x > 1 { c = c.map { l + ($0 - l) * (1 - l) / (x - l) } }
        return c
    }
    static func setLum(_ c: [Double], _ l: Double) -> [Double] { let d = l - lum(c); return clip(c.map { $0 + d }) }
    static func sat(_ c: [Double]) -> Double { c.max()! - c.min()! }
    static func setSat(_ c: [Double], _ s: Double) -> [Double] {
        let idx = [0, 1, 2].sorted { c[$0] < c[$1] }
        var r = [0.0, 0.0, 0.0]
        let (mn, md, mx) = (idx[0], idx[1], idx[2])
        if c[mx] > c[mn] {
            r[md] = (c[md] - c[mn]) * s / (c[mx] - c[mn])
            r[mx] = s
        }
        return r
    }
    static func blend(_ mode: String, _ cb: [Double], _ cs: [Double]) -> [Double] {
        func sep(_ f: (Double, Double) -> Double) -> [Double] { (0..<3).map { f(cb[$0], cs[$0]) } }
        func hard(_ b: Double, _ s: Double) -> Double { s <= 0.5 ? b * 2 * s : b + (2 * s - 1) - b * (2 * s - 1) }
        switch mode {
        case "normal": return cs
        case "multiply": return sep { $0 * $1 }
        case "screen": return sep { $0 + $1 - $0 * $1 }
        case "overlay": return sep { hard($1, $0) }
        case "darken": return sep { min($0, $1) }
        case "lighten": return sep { max($0, $1) }
        case "color-dodge": return sep { b, s in b == 0 ? 0 : (s == 1 ? 1 : min(1, b / (1 - s))) }
        case "color-burn": return sep { b, s in b == 1 ? 1 : (s == 0 ? 0 : 1 - min(1, (1 - b) / s)) }
        case "hard-light": return sep { hard($0, $1) }
        case "soft-light":
            return sep { b, s in
                if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
                let d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
                return b + (2 * s - 1) * (d - b)
            }
        case "difference": return sep { abs($0 - $1) }
        case "exclusion": return sep { $0 + $1 - 2 * $0 * $1 }
        case "hue": return setLum(setSat(cs, sat(cb)), lum(cb))
        case "saturation": return setLum(setSat(cb, sat(cs)), lum(cb))
        case "color": return setLum(cs, lum(cb))
        case "luminosity": return setLum(cb, lum(cs))
        default: fatalError("unexpected blend \(mode)")
        }
    }

    /// Gradient stop positions by CSS Images 3's rules.
    static func positions(_ stops: [Stop]) -> [Double] {
        var p = stops.map(\.pos)
        if p[0] == nil { p[0] = 0 }
        if p[p.count - 1] == nil { p[p.count - 1] = 1 }
        var m = p[0]!
        for i in p.indices { if let v = p[i] { m = max(m, v); p[i] = m } }
        var i = 1
        while i < p.count {
            if p[i] == nil {
                var j = i; while p[j] == nil { j += 1 }
                for k in i..<j { p[k] = p[i - 1]! + (p[j]! - p[i - 1]!) * Double(k - i + 1) / Double(j - i + 1) }
                i = j
            }
            i += 1
        }
        return p.map { $0! }
    }

    /// The overlay's colour (straight, [0,1]) and alpha at pixel (px, py), top-left origin.
    static func fill(_ bg: Background, px: Int, py: Int, w: Int, h: Int) -> ([Double], Double) {
        if bg.type == "color" { let c = bg.rgba!; return ([c[0] / 255, c[1] / 255, c[2] / 255], c[3]) }
        let u = Double(px) + 0.5, v = Double(py) + 0.5
        let t: Double
        if bg.type == "linear-gradient" {
            t = bg.direction == "to right" ? u / Double(w) : v / Double(h)
        } else {
            let cx = bg.at![0] * Double(w), cy = bg.at![1] * Double(h)
            let corners = [(0.0, 0.0), (Double(w), 0.0), (0.0, Double(h)), (Double(w), Double(h))]
            let r = corners.map { hypot($0.0 - cx, $0.1 - cy) }.max()!
            t = hypot(u - cx, v - cy) / r
        }
        let stops = bg.stops!, pos = positions(stops)
        func premul(_ s: Stop) -> [Double] { let a = s.rgba[3]; return [s.rgba[0] / 255 * a, s.rgba[1] / 255 * a, s.rgba[2] / 255 * a, a] }
        var c: [Double]
        if t <= pos[0] {
            c = premul(stops[0])
        } else if t >= pos.last! {
            c = premul(stops.last!)
        } else {
            let k = (0..<(pos.count - 1)).first { t >= pos[$0] && t < pos[$0 + 1] }!
            let f = (t - pos[k]) / (pos[k + 1] - pos[k])
            let a = premul(stops[k]), b = premul(stops[k + 1])
            c = (0..<4).map { a[$0] + (b[$0] - a[$0]) * f }
        }
        let a = c[3]
        return a > 0 ? ([c[0] / a, c[1] / a, c[2] / a], a) : ([0, 0, 0], 0)
    }

    /// The look's 8-bit result for one 8-bit pixel at (px, py) of a w x h image.
    static func evaluate(_ p: Preset, rgb: [UInt8], px: Int, py: Int, w: Int, h: Int) -> [Double] {
        var c = rgb.map { Double($0) / 255 }
        for o in [p.before, p.after].compactMap({ $0 }) {
            let (cs, a0) = fill(o.background, px: px, py: py, w: w, h: h)
            let a = a0 * o.opacity
            let b = blend(o.mode, c, cs)
            c = (0..<3).map { c[$0] + a * (b[$0] - c[$0]) }
        }
        for (fn, amount) in p.filters { c = apply(fn, amount, c) }
        return c.map { $0 * 255 }
    }
}
