import Cyanotype
import CyanotypeTool
import Foundation

/// A number that changes over time: `v@t,v@t,...` (value at seconds, linear between the
/// keyframes, held before the first and after the last). A plain number is one keyframe.
struct Keyframes: Equatable {
    let keys: [(t: Double, v: Double)]

    static func == (a: Keyframes, b: Keyframes) -> Bool {
        a.keys.count == b.keys.count && zip(a.keys, b.keys).allSatisfy { $0.t == $1.t && $0.v == $1.v }
    }

    /// Parses `0@0,20@5`; nil when `text` has no `@` (a plain value). Times must increase.
    static func parse(_ text: String, what: String) throws(CLIError) -> Keyframes? {
        guard text.contains("@") else { return nil }
        var keys: [(t: Double, v: Double)] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "@", omittingEmptySubsequences: false)
            guard pair.count == 2, let v = Double(pair[0]), let t = Double(pair[1]), v.isFinite, t.isFinite else {
                throw .usage("\(what): expected keyframes VALUE@SECONDS,VALUE@SECONDS..., e.g. 0@0,20@5; got '\(text)'")
            }
            if let last = keys.last, t <= last.t {
                throw .usage("\(what): keyframe times must increase ('\(text)')")
            }
            keys.append((t, v))
        }
        return Keyframes(keys: keys)
    }

    /// The value at `t` seconds.
    func value(at t: Double) -> Double {
        guard let first = keys.first, let last = keys.last else { return 0 }
        if t <= first.t { return first.v }
        if t >= last.t { return last.v }
        for i in 1..<keys.count where t <= keys[i].t {
            let a = keys[i - 1], b = keys[i]
            return a.v + (b.v - a.v) * (t - a.t) / (b.t - a.t)
        }
        return last.v
    }
}

/// A `--filter` SPEC whose numbers may be keyframed: `gaussianBlur radius=0@0,50@5`, or in a
/// vector, component by component: `vignetteEffect center=[100@0,300@4 200]`. Checked once
/// against the filter's declaration (at the first keyframes' values); `apply(to:at:)` builds
/// the filter for one moment.
struct AnimatedFilter: @unchecked Sendable {
    enum Track {
        case number(Keyframes)
        /// Components; nil where the component is a plain number (kept from `base`).
        case vector([Keyframes?], base: [Double])
    }
    let resolved: ResolvedFilter
    let tracks: [String: Track]

    var isAnimated: Bool { !tracks.isEmpty }

    init(parsing text: String, loadImage: ValueParser.ImageLoader) throws(CLIError) {
        let spec = try FilterSpec.parse(text)
        let descriptor = try Names.filter(spec.name)
        var arguments: [FilterSpec.Argument] = []
        var tracks: [String: Track] = [:]
        for arg in spec.arguments {
            guard !arg.quoted, arg.value.contains("@") else { arguments.append(arg); continue }
            let key = try Names.key(arg.key, of: descriptor).key
            let what = "\(descriptor.name).\(key)"
            if arg.value.hasPrefix("[") && arg.value.hasSuffix("]") {
                // Components split on spaces only (commas separate keyframes).
                let parts = arg.value.dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                var comps: [Keyframes?] = [], base: [Double] = []
                for p in parts {
                    if let k = try Keyframes.parse(p, what: what) {
                        comps.append(k); base.append(k.keys[0].v)
                    } else {
                        guard let v = Double(p), v.isFinite else { throw .usage("\(what): expected a number, got '\(p)'") }
                        comps.append(nil); base.append(v)
                    }
                }
                tracks[key] = .vector(comps, base: base)
                arguments.append(.init(key: arg.key, value: "[" + base.map { "\($0)" }.joined(separator: " ") + "]", quoted: false))
            } else if let k = try Keyframes.parse(arg.value, what: what) {
                tracks[key] = .number(k)
                arguments.append(.init(key: arg.key, value: "\(k.keys[0].v)", quoted: false))
            }
        }
        resolved = try ResolvedFilter(FilterSpec(name: spec.name, arguments: arguments), loadImage: loadImage)
        self.tracks = tracks
    }

    /// The filter at `t` seconds, with `extra` inputs set by the caller (e.g. a transition's
    /// target and time).
    func resolved(at t: Double, overriding extra: [String: Any] = [:]) -> ResolvedFilter {
        var values = resolved.values
        for (k, track) in tracks {
            switch track {
            case .number(let kf): values[k] = NSNumber(value: kf.value(at: t))
            case let .vector(comps, base): values[k] = CIVector(values: zip(comps, base).map { c, b in CGFloat(c?.value(at: t) ?? b) })
            }
        }
        for (k, v) in extra { values[k] = v }
        return ResolvedFilter(descriptor: resolved.descriptor, values: values)
    }

    /// The filter at `t` seconds applied to `image` as `pipeline` applies filters (`apply`'s
    /// rules: the picture keeps its extent, and filters reading past its edges see them
    /// extended).
    func apply(to image: CIImage, at t: Double, overriding extra: [String: Any] = [:], in pipeline: Pipeline = Pipeline()) throws(CLIError) -> CIImage {
        try pipeline.apply(resolved(at: t, overriding: extra), to: image)
    }
}
