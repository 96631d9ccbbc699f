import Foundation

/// A CSS filter function (Filter Effects 1), applied to sRGB-encoded, straight-alpha values
/// and clamped to [0, 1] afterwards, as browsers do.
///
/// Amounts follow CSS: 1 is 100%; `hueRotate` is in degrees. Negative amounts are invalid
/// in CSS and are treated as 0; grayscale, sepia, invert and opacity clamp above 1.
public enum CSSFilterFunction: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// `grayscale(amount)`: mixes towards grey by the W3C luminance matrix (1: fully grey).
    case grayscale(Double)
    /// `sepia(amount)`: mixes towards the W3C sepia matrix (1: fully sepia).
    case sepia(Double)
    /// `saturate(amount)`: scales saturation (0: grey, 1: unchanged, above 1: more vivid).
    case saturate(Double)
    /// `hue-rotate(angle)`: rotates hues by `degrees` with the W3C matrix.
    case hueRotate(degrees: Double)
    /// `invert(amount)`: mixes towards the inverted colour (1: fully inverted).
    case invert(Double)
    /// `opacity(amount)`: multiplies alpha (0: transparent, 1: unchanged).
    case opacity(Double)
    /// `brightness(amount)`: multiplies the colour (0: black, 1: unchanged).
    case brightness(Double)
    /// `contrast(amount)`: scales the colour about 0.5 (0: grey, 1: unchanged).
    case contrast(Double)

    /// The CSS spelling, e.g. `contrast(1.1)` or `hue-rotate(-20deg)`.
    public var description: String {
        switch self {
        case .grayscale(let a): return "grayscale(\(fmt(a)))"
        case .sepia(let a): return "sepia(\(fmt(a)))"
        case .saturate(let a): return "saturate(\(fmt(a)))"
        case .hueRotate(let d): return "hue-rotate(\(fmt(d))deg)"
        case .invert(let a): return "invert(\(fmt(a)))"
        case .opacity(let a): return "opacity(\(fmt(a)))"
        case .brightness(let a): return "brightness(\(fmt(a)))"
        case .contrast(let a): return "contrast(\(fmt(a)))"
        }
    }

    /// The function as an affine map on (R, G, B): 3 rows of (r, g, b, offset), plus the
    /// factor alpha is multiplied by. Matrices are the W3C editor's draft's (luminance
    /// weights 0.2126 / 0.7152 / 0.0722).
    public var affine: CSSAffine {
        let lr = 0.2126, lg = 0.7152, lb = 0.0722
        func nonneg(_ v: Double) -> Double { v > 0 ? v : 0 }
        func unit(_ v: Double) -> Double { min(nonneg(v), 1) }
        switch self {
        case .grayscale(let a):
            let x = 1 - unit(a)
            return CSSAffine(rows: [
                [lr + (1 - lr) * x, lg - lg * x, lb - lb * x, 0],
                [lr - lr * x, lg + (1 - lg) * x, lb - lb * x, 0],
                [lr - lr * x, lg - lg * x, lb + (1 - lb) * x, 0],
            ])
        case .sepia(let a):
            let x = 1 - unit(a)
            return CSSAffine(rows: [
                [0.393 + 0.607 * x, 0.769 - 0.769 * x, 0.189 - 0.189 * x, 0],
                [0.349 - 0.349 * x, 0.686 + 0.314 * x, 0.168 - 0.168 * x, 0],
                [0.272 - 0.272 * x, 0.534 - 0.534 * x, 0.131 + 0.869 * x, 0],
            ])
        case .saturate(let s0):
            let s = nonneg(s0)
            return CSSAffine(rows: [
                [lr + (1 - lr) * s, lg - lg * s, lb - lb * s, 0],
                [lr - lr * s, lg + (1 - lg) * s, lb - lb * s, 0],
                [lr - lr * s, lg - lg * s, lb + (1 - lb) * s, 0],
            ])
        case .hueRotate(let deg):
            let t = deg * .pi / 180, c = cos(t), s = sin(t)
            let L = [[lr, lg, lb], [lr, lg, lb], [lr, lg, lb]]
            let C = [[1 - lr, -lg, -lb], [-lr, 1 - lg, -lb], [-lr, -lg, 1 - lb]]
            let S = [[-lr, -lg, 1 - lb], [0.143, 0.140, -0.283], [-(1 - lr), lg, lb]]
            var rows: [[Double]] = []
            for i in 0..<3 {
                rows.append((0..<3).map { j in L[i][j] + c * C[i][j] + s * S[i][j] } + [0])
            }
            return CSSAffine(rows: rows)
        case .invert(let a0):
            let a = unit(a0)
            return .diagonal(scale: 1 - 2 * a, offset: a)
        case .opacity(let a):
            var m = CSSAffine.diagonal(scale: 1, offset: 0)
            m.alphaScale = unit(a)
            return m
        case .brightness(let b):
            return .diagonal(scale: nonneg(b), offset: 0)
        case .contrast(let c0):
            let c = nonneg(c0)
            return .diagonal(scale: c, offset: 0.5 - 0.5 * c)
        }
    }

    /// Parses a CSS `filter` value such as `"contrast(1.1) hue-rotate(-20deg) saturate(130%)"`.
    public static func parseList(_ css: String) throws(RecipeError) -> [CSSFilterFunction] {
        var out: [CSSFilterFunction] = []
        var rest = Substring(css.trimmingCharacters(in: .whitespacesAndNewlines))
        if rest == "none" || rest.isEmpty { return [] }
        while !rest.isEmpty {
            guard let open = rest.firstIndex(of: "("), let close = rest.firstIndex(of: ")"), open < close else {
                throw .invalidCSS(css, reason: "expected name(amount)")
            }
            let name = rest[..<open].trimmingCharacters(in: .whitespaces).lowercased()
            var arg = rest[rest.index(after: open)..<close].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: close)...].drop { $0 == " " || $0 == "\n" || $0 == "\t" }
            let known = ["grayscale", "sepia", "saturate", "hue-rotate", "invert", "opacity", "brightness", "contrast"]
            guard known.contains(name) else { throw .invalidCSS(css, reason: "unknown or unsupported filter function '\(name)'") }
            var scale = 1.0
            var isAngle = false
            if arg.hasSuffix("%") {
                arg.removeLast(); scale = 0.01
            } else if arg.hasSuffix("deg") {
                arg.removeLast(3); isAngle = true
            } else if arg.hasSuffix("turn") {
                arg.removeLast(4); scale = 360; isAngle = true
            } else if arg.hasSuffix("rad") {
                arg.removeLast(3); scale = 180 / .pi; isAngle = true
            }
            let value: Double
            if arg.isEmpty {
                value = name == "hue-rotate" ? 0 : 1
            } else if let v = Double(arg) {
                value = v * scale
            } else {
                throw .invalidCSS(css, reason: "'\(arg)' is not a number in \(name)()")
            }
            if isAngle != (name == "hue-rotate"), !arg.isEmpty, !(name == "hue-rotate" && value == 0) {
                throw .invalidCSS(css, reason: "\(name)() takes \(name == "hue-rotate" ? "an angle" : "a number or percentage")")
            }
            if value < 0, name != "hue-rotate" { throw .invalidCSS(css, reason: "negative amount in \(name)()") }
            switch name {
            case "grayscale": out.append(.grayscale(value))
            case "sepia": out.append(.sepia(value))
            case "saturate": out.append(.saturate(value))
            case "hue-rotate": out.append(.hueRotate(degrees: value))
            case "invert": out.append(.invert(value))
            case "opacity": out.append(.opacity(value))
            case "brightness": out.append(.brightness(value))
            case "contrast": out.append(.contrast(value))
            default: throw .invalidCSS(css, reason: "unknown or unsupported filter function '\(name)'")
            }
        }
        return out
    }
}

/// An affine colour map: `rows[i] = (r, g, b, offset)` for output channel i; alpha is
/// multiplied by `alphaScale`.
public struct CSSAffine: Sendable, Equatable {
    /// Three rows, one per output channel (red, green, blue): the red, green and blue weights
    /// and an offset.
    public var rows: [[Double]]
    /// What alpha is multiplied by.
    public var alphaScale: Double = 1
    /// A map from its three rows and its alpha scale.
    public init(rows: [[Double]], alphaScale: Double = 1) { self.rows = rows; self.alphaScale = alphaScale }
    static func diagonal(scale s: Double, offset o: Double) -> CSSAffine {
        CSSAffine(rows: [[s, 0, 0, o], [0, s, 0, o], [0, 0, s, o]])
    }
    /// 13 floats: row-major 3x4, then alpha scale (the kernel's layout).
    var packed: [Float] { rows.flatMap { $0.map(Float.init) } + [Float(alphaScale)] }
}

func fmt(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v)
}
