import Cyanotype
import Foundation
import Instafilter

/// What happens to one image, in order: crop, rotate, flip, flop; the filters; the LUT; the
/// preset; then resizing (--resize/--thumbnail, then the --max-size cap).
package struct Pipeline: @unchecked Sendable {
    package var geometry = GeometryOptions()
    package var filters: [ResolvedFilter] = []
    /// A 3D LUT (`--lut`), read once, applied after the filters and before the preset.
    package var lut: LUT? = nil
    package var interpolation: LUTInterpolation = .tetrahedral
    /// The LUT's strength, 0...1 (`--intensity` when there is no preset).
    package var lutIntensity: Float = 1
    /// A named look (Instafilter), applied after the filters, at its intensity.
    package var preset: BaseFilter? = nil
    /// Where the `--filter` steps do their arithmetic (`--working-space`): linear light, as
    /// Core Image's default context, or sRGB-encoded values.
    package var workingSpace: WorkingSpace = .linear
    /// Where points and rectangles in the filter specs are measured from (`--origin`).
    package var origin: Origin = .topLeft

    package init() {}

    /// Whether the result may have clear parts where an opaque input had none (a rotation by
    /// an odd angle, a filter): an opaque input is then flattened onto the background.
    package var uncovers: Bool { geometry.uncoversPixels || !filters.isEmpty || preset != nil || geometry.edges == .transparent }

    package func run(on input: CIImage) throws(CLIError) -> CIImage {
        var image = try geometry.applyBeforeFilters(input)
        image = try applying(filters, to: image)
        if let lut { image = image.applyingLUT(lut, interpolation: interpolation, intensity: lutIntensity) }
        if let preset { image = preset.apply(to: image) }
        return try geometry.applyAfterFilters(image)
    }

    /// `fs` in order, as `apply(_:to:)` runs each, computing in `workingSpace`: in `srgb`
    /// the picture (and the filters' colours and images) enter as sRGB-encoded values and
    /// the result returns to linear light.
    package func applying(_ fs: [ResolvedFilter], to input: CIImage) throws(CLIError) -> CIImage {
        guard !fs.isEmpty else { return input }
        guard workingSpace == .srgb else {
            var image = input
            for f in fs { image = try apply(f, to: image) }
            return image
        }
        var image = WorkingSpace.encoded(input)
        for f in fs { image = try apply(workingSpace.adapting(f), to: image) }
        return WorkingSpace.decoded(image)
    }

    /// One filter, as the tool runs it (the library keeps Core Image's semantics): its points
    /// and rectangles measured from `origin` and its default points on the picture (see
    /// `ResolvedFilter.placed`); a filter
    /// that reads past the edges sees the `--edges` extension of the picture, so borders stay
    /// solid; a filter that is not a geometry adjustment keeps the picture's extent (a blur does
    /// not grow it).
    package func apply(_ written: ResolvedFilter, to image: CIImage) throws(CLIError) -> CIImage {
        let before = image.extent
        // Points and rectangles as written (top-left) into Core Image's space, defaults on the picture.
        let f = written.placed(in: before, origin: origin)
        let natural = try f.apply(to: image)
        guard f.takesImage, f.values[kCIInputImageKey] == nil, !before.isInfinite, !before.isEmpty else { return natural }
        let edges = geometry.edges
        if f.descriptor.geometry != .inPlace {
            // Resampling that keeps the picture a rectangle reads the extension at its edges;
            // one that turns or bends it (a rotation, a perspective) leaves its corners clear.
            guard edges != .transparent, f.descriptor.keepsRectangle(values: f.values), !natural.extent.isInfinite, !natural.extent.isEmpty else { return natural }
            return try f.apply(to: edges.extend(image)).cropped(to: natural.extent)
        }
        guard natural.extent.isInfinite || natural.extent.contains(before) else { return natural }
        var out = natural
        if edges != .transparent && (f.descriptor.reach.readsPastEdges || natural.extent != before) {
            let extended = try f.apply(to: edges.extend(image))
            if extended.extent.isInfinite || extended.extent.contains(before) { out = extended }
        }
        return out.cropped(to: before)
    }
}

/// `--working-space`: the values the `--filter` steps compute on. Core Image's default context
/// works in linear light (`colorInvert` turns grey 128 into 229); `srgb` gives the filters
/// sRGB-encoded values, as a context whose `workingColorSpace` is sRGB does (128 -> 127),
/// like ImageMagick and vips. The LUT, the preset and the encoders are not affected.
package enum WorkingSpace: String, CaseIterable, Sendable {
    case linear, srgb

    /// The option as every command that runs filters lists it.
    package static let option = OptionSpec(
        "--working-space", value: "SPACE",
        help: "What the filters compute on: linear (light, Core Image's default: colorInvert turns grey 128 into 229) or srgb (encoded values: 128 -> 127).")

    /// `--working-space` from the command line (linear when absent).
    package static func parse(_ args: ParsedArguments) throws(CLIError) -> WorkingSpace {
        try parse(args.value("working-space"), option: "--working-space")
    }

    /// A written working space (`linear`, `srgb`; nil: linear), or a usage error naming `option`.
    package static func parse(_ text: String?, option: String) throws(CLIError) -> WorkingSpace {
        guard let text else { return .linear }
        if let w = WorkingSpace(rawValue: text.lowercased()) { return w }
        let names = allCases.map(\.rawValue)
        throw .usage("\(option) must be linear or srgb, got '\(text)'" + Suggest.hint(text.lowercased(), in: names))
    }

    /// `image`'s colour as sRGB-encoded numbers (straight colour through the sRGB curve).
    /// Core Image's explicit conversion stage, not the tone-curve filter: the optimiser cancels
    /// it against its inverse and folds it into an 8/16-bit sRGB read or write.
    package static func encoded(_ image: CIImage) -> CIImage { image.matchedFromWorkingSpace(to: sRGB) ?? image }
    /// The inverse of `encoded`: sRGB-encoded numbers back to linear light.
    package static func decoded(_ image: CIImage) -> CIImage { image.matchedToWorkingSpace(from: sRGB) ?? image }
    /// The space `encoded` and `decoded` convert to and from.
    package static let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!
    /// A constant colour whose working-space values are `color`'s sRGB-encoded components
    /// (what `encoded(CIImage(color:))` renders, without a conversion per pixel).
    package static func encodedConstant(_ color: CIColor) -> CIImage {
        guard color.colorSpace.name == CGColorSpace.sRGB else { return encoded(CIImage(color: color)) }
        return CIImage(color: encodedComponents(color))
    }

    /// A colour whose working-space (linear) values are `color`'s components as written: what
    /// a filter sees of `color` in an sRGB working space.
    static func encodedComponents(_ color: CIColor) -> CIColor {
        let linear = CGColorSpace(name: CGColorSpace.linearSRGB)!
        return CIColor(red: color.red, green: color.green, blue: color.blue, alpha: color.alpha, colorSpace: linear) ?? color
    }

    /// `f` with its colour and image inputs given in this space: in `srgb`, a colour's
    /// components and an image's pixels reach the filter as encoded values, so
    /// `constantColorGenerator color=[0.5 0.5 0.5]` stays 0.5 (128) as in an sRGB context.
    package func adapting(_ f: ResolvedFilter) -> ResolvedFilter {
        guard self == .srgb else { return f }
        var values = f.values
        for (key, value) in f.values {
            if let c = value as? CIColor {
                values[key] = WorkingSpace.encodedComponents(c)
            } else if let image = value as? CIImage {
                values[key] = WorkingSpace.encoded(image)
            }
        }
        return ResolvedFilter(descriptor: f.descriptor, values: values)
    }
}
